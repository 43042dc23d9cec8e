import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { ApiClient, TEST_CONTEXT_SIGNING_KEY, createTestDatabase, deleteNamespaceStreams, eventually, freePortBlock, testNatsUrl, uniqueName, type TestUser } from '@lms/testing';
import { courseRequest } from './catalog-fixture.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const FIELDS = '/api/author/custom_fields';
const fieldsNamed = (t: TestSystem, name: string) => t.db.query<{ count: string }>('SELECT count(*) FROM identity.custom_fields WHERE name = $1', [name]).then(([r]) => Number(r.count));

describe('Idempotency-Key on POST (gateway → NATS → identity → Postgres)', () => {
  let t: TestSystem;
  let author: TestUser;
  let otherAuthor: TestUser;

  beforeAll(async () => {
    t = await startTestSystem();
    const accountId = await t.factory.accountIdOf('default');
    author = await t.factory.user(accountId, ['author']);
    otherAuthor = await t.factory.user(accountId, ['author']);
  });
  afterAll(() => t?.close());

  const create = (user: TestUser, name: string, key?: string) =>
    t.api.as(user.token).post(FIELDS, { custom_fields: [{ name }] }, key === undefined ? {} : { 'idempotency-key': key });

  it('replays the first answer, status and body, for the same key and body without doing the work again', async () => {
    const key = randomUUID();
    const name = uniqueName('field');
    const first = await create(author, name, key);
    expect(first.status).toBe(201);
    const again = await create(author, name, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await fieldsNamed(t, name)).toBe(1);
  });

  it('keeps a key to the request the client made: a service asking another one on its behalf does not use it up', async () => {
    // Creating a course, catalog asks identity about the author more than once under the caller's context.
    const key = randomUUID();
    const title = uniqueName('course');
    const send = () => t.api.as(author.token).post('/api/author/course_templates', { course_templates: [courseRequest({ title })] }, { 'idempotency-key': key });
    const first = await send();
    expect([first.status, first.body.code]).toEqual([201, undefined]);
    const again = await send();
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([201, first.text, 'true']);
    const [row] = await t.db.query<{ count: string }>('SELECT count(*) FROM catalog.course_templates WHERE title = $1', [title]);
    expect(Number(row.count)).toBe(1);
  });

  it('takes the same body with its keys in another order as the same request', async () => {
    const key = randomUUID();
    const name = uniqueName('field');
    const headers = { 'idempotency-key': key };
    const first = await t.api.as(author.token).post(FIELDS, `{"custom_fields":[{"name":"${name}"}]}`, headers);
    const again = await t.api.as(author.token).post(FIELDS, ` { "custom_fields" : [ { "name" : "${name}" } ] }`, headers);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
  });

  it('answers 422 problem+json for the same key with another body, and changes nothing', async () => {
    const key = randomUUID();
    const name = uniqueName('field');
    expect((await create(author, name, key)).status).toBe(201);
    const other = uniqueName('field');
    const res = await create(author, other, key);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await fieldsNamed(t, other)).toBe(0);
  });

  it('does the work once for concurrent requests with one key, and every one gets the same answer', async () => {
    const key = randomUUID();
    const name = uniqueName('field');
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(author, name, key)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(await fieldsNamed(t, name)).toBe(1);
  });

  it('scopes keys per user: another user with the same key does their own work', async () => {
    const key = randomUUID();
    const first = await create(author, uniqueName('field'), key);
    const second = await create(otherAuthor, uniqueName('field'), key);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.custom_fields[0].id).not.toBe(first.body.custom_fields[0].id);
  });

  it("gives an administrator acting as a user (as_user_id) keys of their own: the user's same key, and another administrator's, do their own work", async () => {
    const accountId = await t.factory.accountIdOf('default');
    const [admin, otherAdmin] = [await t.factory.user(accountId, ['admin']), await t.factory.user(accountId, ['admin'])];
    const key = randomUUID();
    const name = uniqueName('field');
    const asAuthor = (user: TestUser, body: string) => t.api.as(user.token).post(`${FIELDS}?as_user_id=${author.userId}`, { custom_fields: [{ name: body }] }, { 'idempotency-key': key });
    const masqueraded = await asAuthor(admin, name);
    expect(masqueraded.status).toBe(201);
    expect((await asAuthor(admin, name)).headers.get('idempotent-replayed')).toBe('true');
    // Field names are unique: each request names its own, so a replay would show another's name.
    const own = await create(author, `${name}-own`, key);
    const another = await asAuthor(otherAdmin, `${name}-other`);
    expect([own.status, own.headers.get('idempotent-replayed'), another.status, another.headers.get('idempotent-replayed')]).toEqual([201, null, 201, null]);
    expect(new Set([masqueraded, own, another].map((r) => r.body.custom_fields[0].id)).size).toBe(3);
    for (const each of [name, `${name}-own`, `${name}-other`]) expect(await fieldsNamed(t, each)).toBe(1);
  });

  it('does not keep a failed request: a retry with the same key does the work', async () => {
    const key = randomUUID();
    const name = uniqueName('field');
    expect((await create(author, name)).status).toBe(201);
    // The name is taken: a 400, rolled back with its claim on the key.
    expect((await create(author, name, key)).status).toBe(400);
    await t.db.query('DELETE FROM identity.custom_fields WHERE name = $1', [name]);
    expect((await create(author, name, key)).status).toBe(201);
  });

  it('forgets a key after 24 hours', async () => {
    const key = randomUUID();
    const name = uniqueName('field');
    const first = await create(author, name, key);
    await t.db.query(`UPDATE identity.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
    await t.db.query('DELETE FROM identity.custom_fields WHERE name = $1', [name]);
    const again = await create(author, name, key);
    expect(again.status).toBe(201);
    expect(again.body.custom_fields[0].id).not.toBe(first.body.custom_fields[0].id);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a malformed key with 400 and does nothing', async () => {
    const name = uniqueName('field');
    for (const key of ['has space', 'x'.repeat(256)]) {
      const res = await create(author, name, key);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
    }
    expect(await fieldsNamed(t, name)).toBe(0);
  });
});

// The all-in-one as a process, killed with SIGKILL right after a 2xx: the key's record must have committed with the write.
const natsUrl = testNatsUrl();
const built = existsSync('dist/apps/all-in-one/main.js');
const describeBuilt = built ? describe : describe.skip;

describeBuilt('Idempotency-Key across a kill -9 of the all-in-one', () => {
  it('replays the answer of a write acknowledged before the crash', async () => {
    const db = await createTestDatabase();
    const namespace = uniqueName('idem');
    const token = `bootstrap_${uniqueName('token')}`;
    const port = await freePortBlock(2);
    const env = {
      PATH: process.env.PATH,
      DATABASE_URL: db.url,
      ...(natsUrl ? { NATS_URL: natsUrl, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY } : {}),
      NATS_NAMESPACE: namespace,
      BOOTSTRAP_ADMIN_TOKEN: token,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      HEALTH_PORT: String(port + 1),
    };
    const launch = (): { child: ChildProcess; exited: Promise<unknown> } => {
      const child = spawn(process.execPath, ['dist/apps/all-in-one/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
    };
    const ready = () => eventually(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000, 200);
    const api = new ApiClient(`http://127.0.0.1:${port}`, token);
    let proc = launch();
    try {
      await ready();
      const key = randomUUID();
      const body = { custom_fields: [{ name: 'Survives a crash' }] };
      const first = await api.post(FIELDS, body, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      proc.child.kill('SIGKILL');
      await proc.exited;
      proc = launch();
      await ready();
      const again = await api.post(FIELDS, body, { 'idempotency-key': key });
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await db.query<{ count: string }>("SELECT count(*) FROM identity.custom_fields WHERE name = 'Survives a crash'")).toEqual([{ count: '1' }]);
    } finally {
      proc.child.kill('SIGKILL');
      await proc.exited;
      if (natsUrl) await deleteNamespaceStreams(natsUrl, namespace);
      await db.drop();
    }
  }, 150_000);
});
