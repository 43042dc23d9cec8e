import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { CloudEvent } from '@lms/contracts';
import { ApiClient, createTestDatabase, deleteNamespaceStreams, embeddedSystemHome, type EmbeddedSystemHome, eventually, queryDatabase, testNatsUrl, type TestDatabase, type TestUser, uniqueName } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const TOKENS = '/api/admin/api_tokens';
/** An endpoint an author may call: proves a token authenticates as its user, with that user's roles. */
const AUTHOR_ENDPOINT = '/api/author/custom_fields';


describe('API tokens, end to end (gateway → NATS → identity → Postgres)', () => {
  const namespace = uniqueName('e2e_tokens');
  let t: TestSystem;
  let admin: ApiClient;
  let accountId: number;
  let author: TestUser;
  let learner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestSystem({ NATS_NAMESPACE: namespace });
    admin = t.api;
    ({ accountId, author, learner, stranger } = await t.factory.cast());
  });
  afterAll(async () => {
    await t?.close();
    const natsUrl = testNatsUrl();
    if (natsUrl) await deleteNamespaceStreams(natsUrl, namespace); // shared with the replica below
  });

  const issue = (body: Record<string, unknown>, api: ApiClient = admin) => api.post(TOKENS, { api_token: body });

  it('gave the bootstrapped account exactly one root sub-account, named after it', async () => {
    const rows = await t.db.query<{ name: string; is_root: boolean }>('SELECT name, is_root FROM identity.sub_accounts WHERE account_id = $1', [accountId]);
    expect(rows).toEqual([{ name: 'default', is_root: true }]);
    await expect(t.db.query('INSERT INTO identity.sub_accounts (account_id, name, is_root) VALUES ($1, $2, true)', [accountId, 'second root'])).rejects.toThrow(
      /sub_accounts_one_root/,
    );
  });

  describe('authentication and audience', () => {
    it('answers 401 without a token on every endpoint', async () => {
      const anonymous = admin.as(undefined);
      for (const res of [await anonymous.get(TOKENS), await issue({ user_id: author.userId, name: 'x' }, anonymous), await anonymous.delete(`${TOKENS}/1`)]) {
        expect(res.status).toBe(401);
      }
    });

    it('answers 403 to authors and learners on every endpoint', async () => {
      for (const user of [author, learner]) {
        const api = admin.as(user.token);
        expect((await api.get(TOKENS)).status).toBe(403);
        expect((await issue({ user_id: user.userId, name: 'self-service' }, api)).status).toBe(403);
        expect((await api.delete(`${TOKENS}/1`)).status).toBe(403);
      }
    });
  });

  describe('create', () => {
    it('issues a token for another user by id, answered once with its secret, that authenticates as that user', async () => {
      const res = await issue({ user_id: author.userId, name: 'CI pipeline' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        meta: {},
        api_tokens: [
          {
            id: expect.stringMatching(/^\d+$/),
            user_id: String(author.userId),
            name: 'CI pipeline',
            token: expect.stringMatching(/^lms_[A-Za-z0-9_-]{43}$/),
            expires_at: null,
            created_at: expect.any(String),
          },
        ],
      });
      const created = res.body.api_tokens[0];
      expect(Number.isNaN(Date.parse(created.created_at))).toBe(false);
      expect((await admin.as(created.token).get(AUTHOR_ENDPOINT)).status).toBe(200);
      // It carries the author's roles, not the issuing administrator's.
      expect((await admin.as(created.token).get(TOKENS)).status).toBe(403);
      // Only the hash is stored.
      const stored = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM identity.api_tokens WHERE id = $1', [Number(created.id)]);
      expect(stored[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored[0].token_hash).not.toContain(created.token);
    });

    it('never keeps a secret for an Idempotency-Key: a repeat is a 409 naming why, and the key table holds no token', async () => {
      const key = `token-key-${Date.now()}`;
      const first = await admin.post(TOKENS, { api_token: { user_id: author.userId, name: 'keyed' } }, { 'idempotency-key': key });
      expect([first.status, first.headers.get('cache-control')]).toEqual([201, 'no-store']);
      const secret = first.body.api_tokens[0].token as string;
      const repeat = await admin.post(TOKENS, { api_token: { user_id: author.userId, name: 'keyed' } }, { 'idempotency-key': key });
      expect([repeat.status, repeat.body.code]).toEqual([409, 'IDEMPOTENT_ANSWER_WITHHELD']);
      expect(JSON.stringify(repeat.body)).not.toContain(secret);
      const kept = await t.db.query<{ reply: string }>('SELECT reply::text AS reply FROM identity.idempotency_keys WHERE key = $1', [key]);
      expect(kept).toHaveLength(1);
      expect(kept[0].reply).not.toContain(secret);
      // One token was issued, and it works.
      expect((await admin.get(`${TOKENS}?user_id=${author.userId}`)).body.api_tokens.filter((x: { name: string }) => x.name === 'keyed')).toHaveLength(1);
      expect((await admin.as(secret).get(AUTHOR_ENDPOINT)).status).toBe(200);
    });

    it('issues a token by uid:<uid> and by numeric text, with an expiry', async () => {
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const byUid = await issue({ user_id: `uid:${learner.uid}`, name: 'by uid', expires_at: expiresAt });
      expect(byUid.status).toBe(201);
      expect(byUid.body.api_tokens[0]).toMatchObject({ user_id: String(learner.userId), name: 'by uid', expires_at: expiresAt });
      const learnerApi = admin.as(byUid.body.api_tokens[0].token);
      expect((await learnerApi.get(AUTHOR_ENDPOINT)).status).toBe(403); // a learner: authenticated, not admitted
      const byText = await issue({ user_id: String(learner.userId), name: 'by text' });
      expect(byText.status).toBe(201);
      expect(byText.body.api_tokens[0].user_id).toBe(String(learner.userId));
    });

    it('answers 404 for a user whose deletion is under way', async () => {
      const leaving = await t.factory.user(await t.factory.accountIdOf('default'), ['learner']);
      await t.factory.markDeletionRequested(leaving.userId);
      const res = await issue({ user_id: leaving.userId, name: 'too late' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('USER_NOT_FOUND');
    });

    it('leaves no live token to a user deleted while it was issued, synchronously or not', async () => {
      const account = await t.factory.accountIdOf('default');
      for (const mode of ['', '?async=true']) {
        const users = await Promise.all(Array.from({ length: 12 }, () => t.factory.user(account, ['learner'])));
        const answers = await Promise.all(users.flatMap((u) => [issue({ user_id: u.userId, name: 'racing' }), admin.delete(`/api/admin/users/${u.userId}${mode}`)]));
        expect([mode, answers.filter((res) => ![201, 204, 404].includes(res.status)).map((res) => res.status)]).toEqual([mode, []]);
        const live = await t.db.query<{ id: number }>('SELECT id FROM identity.api_tokens WHERE user_id = ANY($1) AND revoked_at IS NULL', [users.map((u) => u.userId)]);
        expect([mode, live]).toEqual([mode, []]);
      }
    });

    it("answers 404 for a user of another account, an unknown id and an unknown uid, and stores nothing", async () => {
      const before = await t.factory.count('identity.api_tokens');
      for (const user_id of [stranger.userId, `uid:${stranger.uid}`, 999_999, '99999999999', 'uid:nobody-here']) {
        const res = await issue({ user_id, name: 'nope' });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('USER_NOT_FOUND');
      }
      expect(await t.factory.count('identity.api_tokens')).toBe(before);
    });

    it.each([
      ['an unknown field', { user_id: 1, name: 'x', roles: ['admin'] }, 'api_token.roles'],
      ['a missing name', { user_id: 1 }, 'api_token.name'],
      ['an empty name', { user_id: 1, name: '' }, 'api_token.name'],
      ['a name over 100 characters', { user_id: 1, name: 'n'.repeat(101) }, 'api_token.name'],
      ['a missing user_id', { name: 'x' }, 'api_token.user_id'],
      ['a user_id that is neither an id nor uid:', { user_id: 'bob', name: 'x' }, 'api_token.user_id'],
      ['a user_id of zero', { user_id: 0, name: 'x' }, 'api_token.user_id'],
      ['an expires_at in the past', { user_id: 1, name: 'x', expires_at: '2020-01-01T00:00:00Z' }, 'api_token.expires_at'],
      ['an expires_at that is not RFC 3339', { user_id: 1, name: 'x', expires_at: 'tomorrow' }, 'api_token.expires_at'],
    ])('answers 400 with field errors for %s', async (_case, body, field) => {
      const res = await issue(body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });

    it('answers 400 for an unknown top-level field and a missing api_token key', async () => {
      expect((await admin.post(TOKENS, { api_token: { user_id: author.userId, name: 'x' }, account_id: 1 })).status).toBe(400);
      expect((await admin.post(TOKENS, { api_tokens: [{ user_id: author.userId, name: 'x' }] })).status).toBe(400);
    });
  });

  describe('list', () => {
    it('lists live tokens without secrets, filters by user id or uid, and never shows another account', async () => {
      const mine = (await issue({ user_id: author.userId, name: 'listed' })).body.api_tokens[0];
      const theirs = (await issue({ user_id: stranger.userId, name: 'theirs' }, admin.as(stranger.token))).body.api_tokens[0];
      const res = await admin.get(`${TOKENS}?per_page=1000`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({});
      const { token: _secret, ...listed } = mine;
      expect(res.body.api_tokens).toContainEqual(listed);
      for (const token of res.body.api_tokens) expect(Object.keys(token).sort()).toEqual(['created_at', 'expires_at', 'id', 'name', 'user_id']);
      expect(res.text).not.toContain(mine.token);
      expect(res.body.api_tokens.map((x: { id: string }) => x.id)).not.toContain(theirs.id);

      for (const filter of [String(author.userId), `uid:${author.uid}`]) {
        const filtered = await admin.get(`${TOKENS}?per_page=1000&user_id=${encodeURIComponent(filter)}`);
        expect(filtered.status).toBe(200);
        expect(filtered.body.api_tokens.length).toBeGreaterThan(0);
        expect(filtered.body.api_tokens.every((x: { user_id: string }) => x.user_id === String(author.userId))).toBe(true);
        expect(filtered.body.api_tokens.map((x: { id: string }) => x.id)).toContain(mine.id);
      }
      expect((await admin.get(`${TOKENS}?user_id=${stranger.userId}`)).body.api_tokens).toEqual([]);
      expect((await admin.get(`${TOKENS}?user_id=abc`)).status).toBe(400);
    });

    it('pages with a Link header', async () => {
      await issue({ user_id: author.userId, name: 'page a' });
      await issue({ user_id: author.userId, name: 'page b' });
      const all = (await admin.get(`${TOKENS}?per_page=1000`)).body.api_tokens;
      const second = await admin.get(`${TOKENS}?per_page=1&page=2`);
      expect(second.body.api_tokens).toEqual([all[1]]);
      expect(second.headers.get('link')).toMatch(/rel="prev"/);
    });
  });

  describe('revoke', () => {
    it('answers 204; the very next request with the cached token is 401; the list drops it; an event is published', async () => {
      const seen: CloudEvent[] = [];
      const sub = await t.system.bus.events.consume(
        { durable: 'e2e-api-token-revoked', types: ['identity.api_token.revoked'], maxDeliver: 3, backoffMs: [100] },
        async (event) => void seen.push(event),
      );
      try {
        const created = (await issue({ user_id: author.userId, name: 'short-lived' })).body.api_tokens[0];
        const api = admin.as(created.token);
        expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(200);
        expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(200); // now answered from the gateway's cache

        const res = await admin.delete(`${TOKENS}/${created.id}`);
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(401);

        const listed = (await admin.get(`${TOKENS}?per_page=1000`)).body.api_tokens.map((x: { id: string }) => x.id);
        expect(listed).not.toContain(created.id);
        expect((await admin.delete(`${TOKENS}/${created.id}`)).status).toBe(404);

        const event = await eventually(async () => seen.find((e) => (e.data as { id: number }).id === Number(created.id)));
        expect(event).toMatchObject({ type: 'identity.api_token.revoked', source: '/identity', accountid: accountId, data: { userId: author.userId, name: 'short-lived' } });
      } finally {
        await sub.unsubscribe();
      }
    });

    it("answers 404 for another account's token and an unknown id, leaving the token alive; 400 for a non-integer id", async () => {
      const created = (await issue({ user_id: author.userId, name: 'guarded' })).body.api_tokens[0];
      expect((await admin.as(stranger.token).delete(`${TOKENS}/${created.id}`)).status).toBe(404);
      expect((await admin.delete(`${TOKENS}/999999`)).status).toBe(404);
      expect((await admin.delete(`${TOKENS}/99999999999`)).status).toBe(400); // beyond a Postgres integer: an invalid id, not a 500
      expect((await admin.delete(`${TOKENS}/abc`)).status).toBe(400);
      expect((await admin.as(created.token).get(AUTHOR_ENDPOINT)).status).toBe(200);
    });

    const withNats = testNatsUrl() ? it : it.skip;
    withNats('reaches every gateway replica: a token cached by two gateways is refused by both after one revocation', async () => {
      // A second whole system on the same database and NATS namespace: two gateways, two identity replicas.
      const replica = await startTestSystem({ NATS_NAMESPACE: namespace, BOOTSTRAP_ADMIN_TOKEN: t.token }, t.db);
      try {
        const created = (await issue({ user_id: author.userId, name: 'replicated' })).body.api_tokens[0];
        const viaFirst = admin.as(created.token);
        const viaSecond = replica.api.as(created.token);
        expect((await viaFirst.get(AUTHOR_ENDPOINT)).status).toBe(200);
        expect((await viaSecond.get(AUTHOR_ENDPOINT)).status).toBe(200);
        expect((await replica.api.delete(`${TOKENS}/${created.id}`)).status).toBe(204);
        // The broadcast is fire-and-forget: the other replica drops the entry as soon as it arrives.
        await eventually(async () => ((await viaFirst.get(AUTHOR_ENDPOINT)).status === 401 ? true : undefined), 5_000);
        expect((await viaSecond.get(AUTHOR_ENDPOINT)).status).toBe(401);
      } finally {
        await replica.close();
      }
    });
  });

  describe('expiry', () => {
    it('refuses a token once its expires_at has passed, while listing it with its expiry', async () => {
      const expiresAt = new Date(Date.now() + 2_000);
      const created = (await issue({ user_id: author.userId, name: 'expiring', expires_at: expiresAt.toISOString() })).body.api_tokens[0];
      // Used before it expires, so the gateway has cached it: the cache must not outlive the token.
      expect((await admin.as(created.token).get(AUTHOR_ENDPOINT)).status).toBe(200);
      await eventually(async () => (Date.now() > expiresAt.getTime() + 100 ? true : undefined), 10_000, 100);
      const res = await admin.as(created.token).get(AUTHOR_ENDPOINT);
      expect(res.status).toBe(401);
      const listed = (await admin.get(`${TOKENS}?per_page=1000`)).body.api_tokens.find((x: { id: string }) => x.id === created.id);
      expect(listed).toMatchObject({ expires_at: expiresAt.toISOString() });
    });
  });
});

// The operator command, from the build `npm test` makes first.
const cliBuilt = existsSync('dist/apps/identity/cli.js');
const describeCli = cliBuilt ? describe : describe.skip;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const cli = (args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['dist/apps/identity/cli.js', ...args], { env: { PATH: process.env.PATH, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });

const field = (stdout: string, key: string) => stdout.match(new RegExp(`^${key}=(.+)$`, 'm'))?.[1];

describeCli('cli accounts:create', () => {
  let db: TestDatabase;
  let t: TestSystem | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.close();
    await db?.drop();
  });

  it('creates an account on a fresh database and prints an administrator token that works against the running system', async () => {
    const created = await cli(['accounts:create', '--subdomain', 'acme', '--name', 'Acme Corp'], { DATABASE_URL: db.url });
    expect(created.stderr).toBe(`database: DATABASE_URL (${new URL(db.url).host})\n`);
    expect(created.code).toBe(0);
    const token = field(created.stdout, 'token');
    const accountId = Number(field(created.stdout, 'account_id'));
    expect(token).toMatch(/^lms_/);
    expect(field(created.stdout, 'admin_uid')).toBe('admin');

    const subAccounts = await db.query<{ name: string; is_root: boolean }>('SELECT name, is_root FROM identity.sub_accounts WHERE account_id = $1', [accountId]);
    expect(subAccounts).toEqual([{ name: 'Acme Corp', is_root: true }]);

    t = await startTestSystem({}, db);
    const api = t.api.as(token);
    const listed = await api.get(TOKENS);
    expect(listed.status).toBe(200);
    expect(listed.body.api_tokens).toHaveLength(1);
    // The administrator can issue tokens in the new account: the CLI's token is a real admin of it.
    const admins = await db.query<{ id: number }>("SELECT id FROM identity.users WHERE account_id = $1 AND uid = 'admin'", [accountId]);
    expect((await api.post(TOKENS, { api_token: { user_id: 'uid:admin', name: 'second' } })).body.api_tokens[0].user_id).toBe(String(admins[0].id));
  }, 120_000);

  it('exits 1 for a taken subdomain, 2 for an invalid one, and 2 for a DATABASE_URL that is not one, creating nothing', async () => {
    expect((await cli(['accounts:create', '--subdomain', 'taken', '--name', 'First'], { DATABASE_URL: db.url })).code).toBe(0);
    const before = await db.query<{ count: string }>('SELECT count(*) FROM identity.accounts');
    const taken = await cli(['accounts:create', '--subdomain', 'taken', '--name', 'Again'], { DATABASE_URL: db.url });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already exists/);
    expect(taken.stdout).toBe('');
    const invalid = await cli(['accounts:create', '--subdomain', 'Not_A_Label', '--name', 'Bad'], { DATABASE_URL: db.url });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/not a subdomain/);
    const misconfigured = await cli(['accounts:create', '--subdomain', 'other', '--name', 'Other'], { DATABASE_URL: 'mysql://db/x' });
    expect(misconfigured.code).toBe(2);
    expect(misconfigured.stderr).toMatch(/DATABASE_URL must use postgres/);
    expect(await db.query<{ count: string }>('SELECT count(*) FROM identity.accounts')).toEqual(before);
  }, 120_000);
});

describeCli('cli accounts:create in the embedded default (no DATABASE_URL)', () => {
  let home: EmbeddedSystemHome;
  const bootstrap = `bootstrap_${uniqueName('token')}`;

  beforeAll(async () => {
    home = await embeddedSystemHome({ token: bootstrap });
  });
  afterAll(async () => {
    await home?.remove();
  });

  const create = (subdomain: string) => cli(['accounts:create', '--subdomain', subdomain, '--name', subdomain], { DATA_DIR: home.dataDir, EMBEDDED_POSTGRES_PORT: home.env.EMBEDDED_POSTGRES_PORT });

  it('uses the data folder npm start uses, whether the server is down or running, and says which', async () => {
    // Down: the command starts the embedded Postgres for itself (initialising a fresh folder) and stops it.
    const offline = await create('offline');
    expect(offline.code).toBe(0);
    expect(offline.stderr).toBe(`database: embedded Postgres in ${home.dataDir}/postgres (started for this command)\n`);

    const system = await home.start();
    const offlineToken = field(offline.stdout, 'token');
    expect((await new ApiClient(home.baseUrl, offlineToken).get(TOKENS)).status).toBe(200);

    // Running: the command joins the running server's database; its token works at once.
    const online = await create('online');
    expect(online.code).toBe(0);
    expect(online.stderr).toBe(`database: embedded Postgres in ${home.dataDir}/postgres (the running server)\n`);
    const onlineToken = field(online.stdout, 'token');
    expect((await new ApiClient(home.baseUrl, onlineToken).get(TOKENS)).status).toBe(200);
    // The server's first start found an account already there, so it bootstrapped none of its own.
    const accounts = await queryDatabase<{ subdomain: string }>(home.databaseUrl, 'SELECT subdomain FROM identity.accounts ORDER BY id');
    expect(accounts.map((a) => a.subdomain)).toEqual(['offline', 'online']);

    system.kill('SIGTERM');
    await home.gone(system);
  }, 180_000);
});
