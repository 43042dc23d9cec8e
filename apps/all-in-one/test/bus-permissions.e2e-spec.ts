import { createSecretKey, randomBytes } from 'node:crypto';
import { connect, type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { RpcReply, RpcRequest } from '@lms/contracts';
import {
  CONTEXT_REFUSED,
  ContextSeal,
  contextSealFor,
  createBus,
  createLogger,
  loadConfig,
  natsPasswordVariable,
  natsUsers,
  ObjectFileStore,
  renderNatsAuthorization,
  signFileUrl,
  type Deployable,
  type MessageBus,
  type Runtime,
} from '@lms/platform';
import { ApiClient, createTestDatabase, eventually, IdentityFactory, natsServerAvailable, startOwnNatsServer, uniqueName, type OwnNatsServer, type TestDatabase } from '@lms/testing';
import { load, SERVICES } from '../src/host.js';

/**
 * The bus with the project's NATS permissions (issue 11): a nats-server of this test's own, configured
 * with the authorization block the Kubernetes and Compose files are rendered from, every deployable
 * connected as its own user, and attackers holding one credential each.
 */
const describeWithServer = natsServerAvailable() ? describe : describe.skip;

// bus-security's port range; the first free one is taken.
const PORTS = Array.from({ length: 100 }, (_, i) => 33_000 + i).sort(() => Math.random() - 0.5);
const KEY = randomBytes(32).toString('base64');
const OBSERVER = 'observer';

const encoder = new TextEncoder();
const json = (value: unknown) => encoder.encode(JSON.stringify(value));

describeWithServer('the bus with per-deployable NATS users and subject permissions', () => {
  const namespace = uniqueName('perm');
  const at = (subject: string) => `${namespace}.${subject}`;
  const users = natsUsers(namespace);
  // The server reads each password from its environment as a configuration value: letters and digits,
  // starting with a letter, always read as a string (docs/security.md).
  const passwords = Object.fromEntries([...users.map((u) => u.user), OBSERVER].map((user) => [user, `p${randomBytes(18).toString('hex')}`]));
  const token = `bootstrap_${uniqueName('token')}`;

  let server: OwnNatsServer;
  let db: TestDatabase;
  const started: Deployable[] = [];
  const buses: MessageBus[] = [];
  const connections: NatsConnection[] = [];
  let api: ApiClient;
  let observer: NatsConnection;

  const configFor = (user: string) =>
    loadConfig({
      DATABASE_URL: db.url,
      NATS_URL: server.url,
      NATS_NAMESPACE: namespace,
      NATS_USER: user,
      NATS_PASSWORD: passwords[user],
      CONTEXT_SIGNING_KEY: KEY,
      BOOTSTRAP_ADMIN_TOKEN: token,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    });

  /** A deployable as Kubernetes runs it: its own NATS connection, as its own user. */
  const startDeployable = async (name: string): Promise<Deployable> => {
    const config = configFor(name);
    const logger = createLogger(config.logLevel);
    const bus = await createBus(config, name, logger);
    buses.push(bus);
    if (name !== 'gateway') await bus.events.ensureStreams();
    const runtime: Runtime = { config, databaseUrl: db.url, bus, logger };
    const deployable = await (await load(name)).start(runtime);
    started.push(deployable);
    return deployable;
  };

  /** A raw connection holding one deployable's credential, as an attacker with a leaked Secret would. */
  const connectAs = async (user: string, password = passwords[user]): Promise<NatsConnection> => {
    const nc = await connect({ servers: server.url, user, pass: password, inboxPrefix: `_INBOX_${user}`, maxReconnectAttempts: 0 });
    connections.push(nc);
    return nc;
  };

  /** Permission violations the server reported to a connection, as `<operation> <subject>`. */
  const violationsOf = (nc: NatsConnection): string[] => {
    const seen: string[] = [];
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'error' && status.error.name === 'PermissionViolationError') {
          const { operation, subject } = status.error as unknown as { operation: string; subject: string };
          seen.push(`${operation} ${subject}`);
        }
      }
    })();
    return seen;
  };

  /** What the observer (every permission) received on `subject`, after everything sent before has arrived. */
  const received: Record<string, string[]> = {};
  const watched: NatsSubscription[] = [];
  const watch = (subject: string) => {
    received[subject] = [];
    watched.push(observer.subscribe(subject, { callback: (_err, msg) => void received[subject].push(msg.subject) }));
  };
  const settle = async (sender: NatsConnection) => {
    await sender.flush(); // the server has handled (or refused) what the sender published
    await observer.flush(); // and the observer has been given whatever it routed
  };

  const request = async (nc: NatsConnection, subject: string, payload: unknown): Promise<RpcReply> =>
    JSON.parse(new TextDecoder().decode((await nc.request(at(subject), json(payload), { timeout: 5000 })).data)) as RpcReply;

  beforeAll(async () => {
    const observerUser = `    { user: "${OBSERVER}", password: $${natsPasswordVariable(OBSERVER)}, permissions: { publish: { allow: [">"] }, subscribe: { allow: [">"] } } }\n`;
    // The project's block, plus an all-seeing observer the test uses to prove what did not arrive.
    const authorization = renderNatsAuthorization(users).replace('  users: [\n', `  users: [\n${observerUser}`);
    server = await startOwnNatsServer({
      config: authorization,
      env: Object.fromEntries(Object.entries(passwords).map(([user, password]) => [natsPasswordVariable(user), password])),
      ports: PORTS,
    });
    db = await createTestDatabase();
    observer = await connectAs(OBSERVER);
    for (const name of SERVICES) await startDeployable(name);
    const gateway = (await startDeployable('gateway')) as Deployable & { url: string };
    api = new ApiClient(gateway.url, token);
  }, 120_000);

  afterAll(async () => {
    for (const sub of watched) sub.unsubscribe();
    for (const deployable of started.reverse()) await deployable.close().catch(() => undefined);
    for (const bus of buses) await bus.close().catch(() => undefined);
    for (const nc of connections) await nc.close().catch(() => undefined);
    await server?.stop();
    await db?.drop();
  }, 60_000);

  it('lets every deployable start as its own user, and the gateway reach identity: a create and a read over HTTP', async () => {
    expect(started.map((d) => d.name)).toEqual([...SERVICES, 'gateway']);
    const created = await api.post('/api/author/custom_fields', { custom_fields: [{ name: 'Region' }] });
    expect(created.status).toBe(201);
    const id = created.body.custom_fields[0].id;
    expect((await api.get(`/api/author/custom_fields/${id}`)).body.custom_fields[0].name).toBe('Region');
  });

  it('lets jobs-worker write files and the gateway stream them at a signed URL, but not write them', async () => {
    const key = `jobs/${uniqueName('job')}/dump.zip`;
    const content = Buffer.from('PK zip bytes, as far as this test cares');
    const worker = new ObjectFileStore(await connectAs('jobs-worker'), namespace);
    await worker.put(key, [content]);
    // Its sweeps list the bucket and purge what killed writes and deletes leave.
    const listed: string[] = [];
    for await (const file of worker.list('jobs/')) listed.push(file.key);
    expect(listed).toContain(key);
    await expect(worker.removeLeftovers(new Date(0))).resolves.toBe(0);
    const res = await fetch(`${api.baseUrl}${signFileUrl(configFor('gateway').fileUrlSigningKey, key, 'dump.zip')}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
    const gatewayUser = await connectAs('gateway');
    await expect(new ObjectFileStore(gatewayUser, namespace, false).put(`${key}.forged`, [content])).rejects.toThrow();
  });

  it('lets the gateway stage uploads and catalog read them, but neither writes the other\'s bucket', async () => {
    const content = Buffer.from('PK staged');
    const gatewayUploads = new ObjectFileStore(await connectAs('gateway'), namespace, true, 1, 'UPLOADS');
    await gatewayUploads.put('uploads/one', [content]);
    const catalog = await connectAs('catalog');
    const staged = await new ObjectFileStore(catalog, namespace, false, 1, 'UPLOADS').open('uploads/one');
    expect(staged?.size).toBe(content.length);
    staged?.stream.destroy();
    await expect(new ObjectFileStore(catalog, namespace, false, 1, 'UPLOADS').put('uploads/forged', [content])).rejects.toThrow();
    await expect(new ObjectFileStore(await connectAs('identity'), namespace, false, 1, 'UPLOADS').open('uploads/one')).rejects.toThrow();
    await gatewayUploads.delete('uploads/one');
    // The gateway sweeps what a killed replica staged: it lists the bucket and purges its leftovers.
    for await (const file of gatewayUploads.list('uploads/')) expect(file.key).not.toBe('uploads/one');
    await expect(gatewayUploads.removeLeftovers(new Date(Date.now() + 60_000))).resolves.toBe(1); // the deleted file's marker
  });

  it('lets identity publish its own events to JetStream', async () => {
    const jsm = await jetstreamManager(observer);
    const subject = at('events.identity.custom_field.created');
    const stored = await eventually(async () => {
      const info = await jsm.streams.info(`${namespace.toUpperCase()}_EVENTS`, { subjects_filter: subject });
      return (info.state.subjects?.[subject] ?? 0) > 0 ? true : undefined;
    });
    expect(stored).toBe(true);
  });

  it('lets identity consume its events and broadcast revocations the gateway hears: an async user deletion end to end', async () => {
    const accountId = (await db.query<{ id: number }>('SELECT id FROM identity.accounts ORDER BY id LIMIT 1'))[0].id;
    const victim = await new IdentityFactory(db.url).user(accountId, ['author']);
    expect((await api.as(victim.token).get('/api/author/custom_fields')).status).toBe(200);
    expect((await api.delete(`/api/admin/users/${victim.userId}?async=true`)).status).toBe(204);
    // The cached principal is dropped by identity's broadcast, the deletion finished by its event consumer.
    expect((await api.as(victim.token).get('/api/author/custom_fields')).status).toBe(401);
    const deletedAt = await eventually(async () => (await api.get(`/api/admin/users/${victim.userId}`)).body.users[0].deleted_at ?? undefined);
    expect(deletedAt).toEqual(expect.any(String));
  });

  it('carries a service’s reply larger than one NATS message to the gateway, every part of it', async () => {
    const [catalog, gateway] = [buses[SERVICES.indexOf('catalog')], buses.at(-1)!];
    // Four times the server's largest message (1 MiB): the server lets catalog's user answer with that many.
    const big = { rows: Array.from({ length: 40_000 }, (_, i) => `row ${i}`.padEnd(100, '.')) };
    const sub = catalog.serve('catalog.permission_probe.big_reply', 'permission-probe', async () => big);
    try {
      await catalog.ping();
      expect(await gateway.request('catalog.permission_probe.big_reply', {}, 10_000)).toEqual(big);
    } finally {
      await sub.unsubscribe();
    }
  });

  it('answers a body the gateway takes but NATS cannot carry with a 413 problem, and creates nothing', async () => {
    // Valid tasks whose JSON is just under the gateway's 1 MiB: with the request's context and seal, more than one NATS message.
    const tasks = Array.from({ length: 10 }, (_, i) => ({ title: `Oversize ${i}`, structured_body: 'x'.repeat(100_000) }));
    const filler = 1024 * 1024 - 100 - JSON.stringify({ tasks: [...tasks, { title: 'Oversize last', structured_body: '' }] }).length;
    tasks.push({ title: 'Oversize last', structured_body: 'y'.repeat(filler) });
    const res = await api.post('/api/author/tasks', { tasks });
    expect([res.status, res.headers.get('content-type'), res.body.code]).toEqual([413, 'application/problem+json; charset=utf-8', 'PAYLOAD_TOO_LARGE']);
    const listed = await api.get('/api/author/tasks?search=Oversize');
    expect([listed.status, listed.body.tasks]).toEqual([200, []]);
  });

  it('refuses a connection without a valid user', async () => {
    await expect(connect({ servers: server.url, maxReconnectAttempts: 0 })).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers: server.url, user: 'gateway', pass: 'wrong', maxReconnectAttempts: 0 })).rejects.toThrow(/Authorization/i);
  });

  it('lets the gateway’s user request any service’s subjects (no responder there is not a refusal)', async () => {
    const gateway = await connectAs('gateway');
    const violations = violationsOf(gateway);
    // Subjects no handler serves, so the answer is always "no responders" once the permission lets the request out.
    for (const subject of ['catalog', 'scheduling', 'jobs', 'locking', 'identity'].map((service) => `${service}.permission_probe.none`)) {
      await expect(gateway.request(at(subject), json({}), { timeout: 2000 })).rejects.toThrow(/no responders/i);
    }
    await settle(gateway);
    expect(violations).toEqual([]);
  });

  it('refuses the gateway’s user events, invalidation broadcasts, and reading what services are asked', async () => {
    watch(at('events.>'));
    watch(at('identity.auth.invalidate'));
    const gateway = await connectAs('gateway');
    const violations = violationsOf(gateway);
    gateway.publish(at('events.identity.user.deleted'), json({ forged: true }));
    gateway.publish(at('identity.auth.invalidate'), json({ all: true }));
    gateway.subscribe(at('identity.>'));
    await settle(gateway);
    expect(received[at('events.>')]).toEqual([]);
    expect(received[at('identity.auth.invalidate')]).toEqual([]);
    await eventually(async () => (violations.length >= 3 ? true : undefined), 5000);
    expect(violations).toEqual(
      expect.arrayContaining([`publish ${at('events.identity.user.deleted')}`, `publish ${at('identity.auth.invalidate')}`, `subscription ${at('identity.>')}`]),
    );
  });

  it('refuses a service’s user another service’s subjects and events, other users’ replies, and the other services’ requests', async () => {
    watch(at('catalog.>'));
    watch(at('events.catalog.>'));
    const identity = await connectAs('identity');
    const violations = violationsOf(identity);
    // Ask the catalog, publish a catalog event, read the catalog's requests and the gateway's replies.
    identity.publish(at('catalog.course_templates.list'), json({}));
    identity.publish(at('events.catalog.enrollment.completed'), json({ forged: true }));
    identity.subscribe(at('catalog.>'));
    identity.subscribe('_INBOX_gateway.>');
    await settle(identity);
    expect(received[at('catalog.>')]).toEqual([]);
    expect(received[at('events.catalog.>')]).toEqual([]);
    await eventually(async () => (violations.length >= 4 ? true : undefined), 5000);
    expect(violations).toEqual(
      expect.arrayContaining([
        `publish ${at('catalog.course_templates.list')}`,
        `publish ${at('events.catalog.enrollment.completed')}`,
        `subscription ${at('catalog.>')}`,
        'subscription _INBOX_gateway.>',
      ]),
    );
    // Nor may a worker, which answers nothing, ask a service outside the data dump's (identity, catalog).
    const worker = await connectAs('jobs-worker');
    const workerViolations = violationsOf(worker);
    worker.publish(at('locking.locks.check'), json({}));
    await settle(worker);
    await eventually(async () => (workerViolations.length >= 1 ? true : undefined), 5000);
    expect(workerViolations).toEqual([`publish ${at('locking.locks.check')}`]);
  });

  describe('a request with a forged caller context, on a connection allowed to send it', () => {
    let gateway: NatsConnection;
    let accountId: number;
    const fieldCount = async () => Number((await db.query<{ count: string }>('SELECT count(*) FROM identity.custom_fields'))[0].count);
    const createAsAdmin = (name: string): RpcRequest => ({
      ctx: { requestId: uniqueName('forged'), accountId, subAccountId: null, userId: 1, roles: ['admin'] },
      params: {},
      query: {},
      body: { custom_fields: [{ name }] },
    });
    const refused = { ok: false, error: expect.objectContaining({ status: 401, code: CONTEXT_REFUSED }) };

    beforeAll(async () => {
      gateway = await connectAs('gateway');
      accountId = (await db.query<{ id: number }>('SELECT id FROM identity.accounts ORDER BY id LIMIT 1'))[0].id;
    });

    it('is refused with 401 and creates nothing when unsigned', async () => {
      const before = await fieldCount();
      await expect(request(gateway, 'identity.custom_fields.create', createAsAdmin('Unsigned'))).resolves.toEqual(refused);
      await expect(request(gateway, 'identity.users.list', { ...createAsAdmin('x'), body: undefined })).resolves.toEqual(refused);
      expect(await fieldCount()).toBe(before);
    });

    it('is refused when signed with another key, or sealed for another subject', async () => {
      const before = await fieldCount();
      const forger = new ContextSeal(createSecretKey(randomBytes(32)), 60_000);
      await expect(request(gateway, 'identity.custom_fields.create', forger.sign('identity.custom_fields.create', createAsAdmin('Other key')))).resolves.toEqual(refused);
      const genuine = contextSealFor(configFor('gateway'));
      const sealedForList = genuine.sign('identity.custom_fields.list', createAsAdmin('Replayed'));
      await expect(request(gateway, 'identity.custom_fields.create', sealedForList)).resolves.toEqual(refused);
      expect(await fieldCount()).toBe(before);
    });

    it('while the same request sealed with the deployment’s key is served (the refusals above are the seal’s doing)', async () => {
      const before = await fieldCount();
      const genuine = contextSealFor(configFor('gateway'));
      const answer = await request(gateway, 'identity.custom_fields.create', genuine.sign('identity.custom_fields.create', createAsAdmin('Sealed')));
      expect(answer).toMatchObject({ ok: true });
      expect(await fieldCount()).toBe(before + 1);
    });
  });
});
