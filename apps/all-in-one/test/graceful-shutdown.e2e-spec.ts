import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import pg from 'pg';
import { createTestDatabase, deleteNamespaceStreams, eventually, freePortBlock, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestDatabase, uniqueName } from '@lms/testing';

// Issue 11, finding 4: SIGTERM while requests are held by a row lock. Every request is answered (none
// reset), every answered write committed and its event relayed, the last log lines written, exit code 0:
// for the all-in-one, the gateway alone and a service alone. Processes come from the build `npm test` makes.
const natsUrl = testNatsUrl();
const built = existsSync('dist/apps/all-in-one/main.js');
const describeBuilt = built ? describe : describe.skip;
const describeWithNats = natsUrl && built ? describe : describe.skip;

/** Fewer than a service's database pool (10), so every held request is inside identity, waiting on the lock. */
const HELD = 8;

interface Proc {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

function launch(app: string, env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, [`dist/apps/${app}/main.js`], { env: { PATH: process.env.PATH, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) {
      if (part.startsWith('{')) lines.push(JSON.parse(part));
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

const ready = (port: number) =>
  eventually(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000, 200);

type Outcome = { status: number; connection?: string } | { error: string };

/** HTTP over a keep-alive agent, so requests after the signal can travel on connections opened before it. */
class Client {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  constructor(
    private readonly port: number,
    private readonly token: string,
  ) {}

  /** A client with connections of its own. */
  another(): Client {
    return new Client(this.port, this.token);
  }

  send(method: string, path: string, body?: unknown): Promise<Outcome & { body?: string }> {
    return new Promise((resolve) => {
      const req = request(
        { host: '127.0.0.1', port: this.port, method, path, agent: this.agent, headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' } },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
          res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
}

/** A transaction holding `FOR UPDATE` on one custom field: every PATCH of it waits until `release`. */
async function holdRow(db: TestDatabase, id: number): Promise<{ waiting(): Promise<number>; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT id FROM identity.custom_fields WHERE id = $1 FOR UPDATE', [id]);
  return {
    // Behind the lock, one update waits for the transaction and the others queue for the row.
    waiting: async () => Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0].n),
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

/**
 * The scenario every mode shares: a custom field whose row a test transaction locks, HELD renames of it
 * sent and waiting on the lock, then `stop` (a SIGTERM) and, while they wait, requests on connections
 * that were idle; then the lock is released. Answers the held and the late requests' outcomes.
 */
async function renamesHeldThrough(db: TestDatabase, api: Client, stop: () => void): Promise<{ held: Outcome[]; late: Outcome[]; fieldId: number }> {
  const created = await api.send('POST', '/api/author/custom_fields', { custom_fields: [{ name: uniqueName('held') }] });
  expect(created).toEqual(expect.objectContaining({ status: 201 }));
  const fieldId = Number(JSON.parse(created.body!).custom_fields[0].id);
  // Kept-alive connections of their own, idle when the signal comes.
  const idle = api.another();
  await Promise.all(Array.from({ length: 3 }, () => idle.send('GET', '/api/author/custom_fields')));
  const lock = await holdRow(db, fieldId);
  const prefix = uniqueName('renamed');
  const held = Array.from({ length: HELD }, (_, i) => api.send('PATCH', `/api/author/custom_fields/${fieldId}`, { custom_field: { name: `${prefix} ${i}` } }));
  await eventually(async () => ((await lock.waiting()) >= HELD ? true : undefined), 30_000, 50);
  stop();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const late = await Promise.all(Array.from({ length: 3 }, () => idle.send('GET', '/api/author/custom_fields')));
  idle.agent.destroy();
  await new Promise((resolve) => setTimeout(resolve, 300));
  await lock.release();
  return { held: await Promise.all(held), late, fieldId };
}

/** What every mode must show: nothing reset, every rename answered and committed, and relayed. */
async function expectEveryRequestAnswered(db: TestDatabase, outcome: { held: Outcome[]; late: Outcome[]; fieldId: number }): Promise<void> {
  expect(outcome.held.map((o) => ('error' in o ? o.error : o.status))).toEqual(Array(HELD).fill(200));
  // Sent after the signal on connections opened before it: answered (503 where the service is gone), never reset.
  for (const late of outcome.late) expect([200, 503]).toContain('error' in late ? late.error : late.status);
  const events = await db.query<{ n: string; published: string }>(
    "SELECT count(*) AS n, count(published_at) AS published FROM identity.outbox WHERE type = 'identity.custom_field.updated' AND payload->'data'->>'id' = $1",
    [String(outcome.fieldId)],
  );
  // One committed rename (and one event) per 200: no write whose client saw a reset; every event relayed before exit.
  expect(events[0]).toEqual({ n: String(HELD), published: String(HELD) });
}

const requestLines = (proc: Proc, method: string) => proc.lines.filter((line) => line.msg === 'request' && line.method === method);

/** The process said it stopped, after the last line of the requests it held. */
function expectStoppedAfter(proc: Proc, lastOfHeld: (line: Record<string, unknown>) => boolean): void {
  const stopped = proc.lines.findIndex((line) => line.msg === 'stopped');
  expect(stopped).toBeGreaterThan(proc.lines.findLastIndex(lastOfHeld));
}

describeBuilt('graceful shutdown of the all-in-one', () => {
  let db: TestDatabase;
  const namespace = uniqueName('shutdown_aio');

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    if (natsUrl) await deleteNamespaceStreams(natsUrl, namespace);
    await db?.drop();
  });

  it('answers every request held by a row lock when SIGTERM comes, writes its last lines and exits 0', async () => {
    const [port] = [await freePortBlock(1)];
    const token = `bootstrap_${uniqueName('token')}`;
    const proc = launch('all-in-one', { DATABASE_URL: db.url, ...(natsUrl ? { NATS_URL: natsUrl, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY } : {}), NATS_NAMESPACE: namespace, PORT: String(port), BOOTSTRAP_ADMIN_TOKEN: token, RPC_TIMEOUT_MS: '20000' });
    try {
      await ready(port);
      const api = new Client(port, token);
      const outcome = await renamesHeldThrough(db, api, () => proc.child.kill('SIGTERM'));
      expect(await proc.exited).toBe(0);
      await expectEveryRequestAnswered(db, outcome);
      expect(requestLines(proc, 'PATCH')).toHaveLength(HELD);
      expectStoppedAfter(proc, (line) => line.msg === 'request' && line.method === 'PATCH');
      api.agent.destroy();
    } finally {
      proc.child.kill('SIGKILL');
    }
  }, 150_000);
});

describeWithNats('graceful shutdown of each deployable alone', () => {
  let db: TestDatabase;
  const namespace = uniqueName('shutdown_alone');
  const token = `bootstrap_${uniqueName('token')}`;
  const procs: Proc[] = [];
  let ports: { identityHealth: number; gateway: number; gatewayHealth: number; identityHealth2: number };
  let env: NodeJS.ProcessEnv;
  let gateway: Proc;

  const start = (app: string, extra: NodeJS.ProcessEnv) => {
    const proc = launch(app, { ...env, ...extra });
    procs.push(proc);
    return proc;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const base = await freePortBlock(4);
    ports = { identityHealth: base, gateway: base + 1, gatewayHealth: base + 2, identityHealth2: base + 3 };
    env = { DATABASE_URL: db.url, NATS_URL: natsUrl, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY, NATS_NAMESPACE: namespace, BOOTSTRAP_ADMIN_TOKEN: token, RPC_TIMEOUT_MS: '20000' };
  });
  afterAll(async () => {
    for (const proc of procs) proc.child.kill('SIGKILL');
    await Promise.all(procs.map((proc) => proc.exited));
    await deleteNamespaceStreams(natsUrl!, namespace);
    await db?.drop();
  });

  it('a service (identity) finishes the requests it holds, relays their events and exits 0', async () => {
    const identity = start('identity', { HEALTH_PORT: String(ports.identityHealth) });
    await ready(ports.identityHealth);
    gateway = start('gateway', { PORT: String(ports.gateway), HEALTH_PORT: String(ports.gatewayHealth) });
    await ready(ports.gateway);
    const api = new Client(ports.gateway, token);
    const outcome = await renamesHeldThrough(db, api, () => identity.child.kill('SIGTERM'));
    expect(await identity.exited).toBe(0);
    // The late requests found no identity: 503 from the gateway, not a reset.
    await expectEveryRequestAnswered(db, outcome);
    expect(identity.lines.filter((line) => line.msg === 'handled request' && line.subject === 'identity.custom_fields.update')).toHaveLength(HELD);
    expectStoppedAfter(identity, (line) => line.msg === 'handled request');
    api.agent.destroy();
  }, 150_000);

  it('the gateway answers the requests it holds, and those on kept-alive connections, then exits 0', async () => {
    start('identity', { HEALTH_PORT: String(ports.identityHealth2) });
    await ready(ports.identityHealth2);
    const api = new Client(ports.gateway, token);
    const outcome = await renamesHeldThrough(db, api, () => gateway.child.kill('SIGTERM'));
    expect(await gateway.exited).toBe(0);
    await expectEveryRequestAnswered(db, outcome);
    for (const late of outcome.late) if (!('error' in late)) expect(late.connection).toBe('close');
    expect(requestLines(gateway, 'PATCH').length).toBeGreaterThanOrEqual(2 * HELD); // both tests' renames went through it
    expectStoppedAfter(gateway, (line) => line.msg === 'request');
    api.agent.destroy();
  }, 150_000);
});
