import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ImportRowsReply, USER_IMPORT_SUBJECTS } from '@lms/contracts';
import { contextSealFor, loadConfig, requestSigned } from '@lms/platform';
import { type ApiClient, eventually, holdingLock, TEST_CONTEXT_SIGNING_KEY, testNatsUrl } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const PROFILE = '/api/admin/import_profile';
const RUN = '/api/admin/import_profile/run';
const RUNS = '/api/admin/import_profile/runs';
const CSV_USER = 'hr-export';
const CSV_PASSWORD = 'S3cret:pass word';

/**
 * Scheduled CSV imports end to end: the gateway, jobs (the run), jobs-worker (fetch, parse, map) and
 * identity (the users) on real Postgres and NATS, with the file served by a real HTTP server in this
 * process that checks HTTP basic auth.
 */
describe('scheduled CSV imports', () => {
  let t: TestSystem;
  let locked: TestSystem;
  let admin: ApiClient;
  let stranger: ApiClient;
  let server: Server;
  let csvUrl: string;
  let csvBody = '';
  const served: { path: string; authorized: boolean }[] = [];

  const finished = (api: ApiClient, id: string) =>
    eventually(async () => {
      const res = await api.get(`${RUNS}/${id}`);
      const run = res.body.import_runs?.[0];
      return run && (run.status === 'complete' || run.status === 'failed') ? run : undefined;
    }, 30_000, 100);

  const runNow = async (api: ApiClient, dryRun = false) => {
    const res = await api.post(dryRun ? `${RUN}?dry_run=true` : RUN);
    expect(res.status).toBe(202);
    expect(res.body.import_runs[0]).toMatchObject({ status: 'pending', trigger: 'manual', dry_run: dryRun, slot: null, counts: null });
    return finished(api, res.body.import_runs[0].id);
  };

  const user = async (uid: string) => admin.get(`/api/admin/users/uid:${uid}`);

  beforeAll(async () => {
    server = createServer((req, res) => {
      const expected = `Basic ${Buffer.from(`${CSV_USER}:${CSV_PASSWORD}`).toString('base64')}`;
      const authorized = req.headers.authorization === expected;
      served.push({ path: req.url ?? '', authorized });
      if (!authorized) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="hr"' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/csv' }).end(csvBody);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    csvUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/export/users.csv`;

    // Settings are read at start: this system may fetch from the loopback server, the second one may not.
    process.env.IMPORT_ALLOW_PRIVATE_ADDRESSES = 'true';
    t = await startTestSystem();
    delete process.env.IMPORT_ALLOW_PRIVATE_ADDRESSES;
    locked = await startTestSystem();
    admin = t.api;
    stranger = admin.as((await t.factory.cast()).stranger.token);

    expect((await admin.post('/api/author/custom_fields', { custom_fields: [{ name: 'Region' }] })).status).toBeLessThan(300);
    expect((await admin.post('/api/admin/users', { users: [{ uid: 'imp-existing', first_name: 'Old', last_name: 'Name', email: 'existing@imp.test' }] })).status).toBe(200);
    expect((await admin.post('/api/admin/users', { users: [{ uid: 'imp-same', first_name: 'Same', last_name: 'As Before', email: 'same@imp.test' }] })).status).toBe(200);
    const profile = await admin.patch(PROFILE, {
      csv_url: csvUrl,
      csv_user: CSV_USER,
      csv_password: CSV_PASSWORD,
      has_headers: true,
      csv_days: '0000000',
      csv_time: '03:00',
      columns: { '0': ['uid'], '1': ['first_name'], '2': ['last_name'], '3': ['email'], '4': ['Region'] },
    });
    expect(profile.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await locked?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const FILE = [
    'uid,first_name,last_name,email,region',
    'imp-existing,New,Name,existing@imp.test,North',
    'imp-ada,Ada,Lovelace,ada@imp.test,South',
    '"imp-grace","Grace","Hopper, Rear Admiral",grace@imp.test,',
    'imp-bad,Bad,Row,not-an-email,East',
    'imp-same,Same,As Before,same@imp.test,',
    '',
  ].join('\r\n');

  it('keeps the profile\'s schedule in jobs from identity\'s event', async () => {
    const row = await eventually(async () => (await t.db.query<{ csv_days: boolean[]; csv_time: string; has_url: boolean }>('SELECT csv_days, csv_time, has_url FROM jobs.import_schedules'))[0]);
    expect(row).toEqual({ csv_days: [false, false, false, false, false, false, false], csv_time: '03:00', has_url: true });
  });

  it('a dry run answers what would change, and changes nothing', async () => {
    csvBody = FILE;
    const run = await runNow(admin, true);
    expect(run).toMatchObject({ status: 'complete', dry_run: true, rows: 5, counts: { created: 2, updated: 1, unchanged: 1, failed: 1 }, error: null });
    expect(run.changes).toEqual([
      { line: 2, uid: 'imp-existing', action: 'update', fields: expect.arrayContaining(['first_name', expect.stringMatching(/^custom_fields\.\d+$/)]) },
      { line: 3, uid: 'imp-ada', action: 'create', fields: expect.arrayContaining(['uid', 'email']) },
      { line: 4, uid: 'imp-grace', action: 'create', fields: expect.any(Array) },
    ]);
    expect(run.errors).toEqual([{ line: 5, field: 'email', message: expect.stringMatching(/email/) }]);
    expect((await user('imp-ada')).status).toBe(404);
    expect((await user('imp-existing')).body.users[0].first_name).toBe('Old');
    // The server saw basic auth with the stored password.
    expect(served.at(-1)).toEqual({ path: '/export/users.csv', authorized: true });
  });

  it('creates and updates the right users; a bad row is reported by line and does not stop the others', async () => {
    const run = await runNow(admin);
    expect(run).toMatchObject({ status: 'complete', dry_run: false, rows: 5, counts: { created: 2, updated: 1, unchanged: 1, failed: 1 }, error: null });
    expect(run.errors).toEqual([{ line: 5, field: 'email', message: expect.any(String) }]);
    expect((await user('imp-ada')).body.users[0]).toMatchObject({ uid: 'imp-ada', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@imp.test', roles: ['learner'] });
    expect((await user('imp-grace')).body.users[0]).toMatchObject({ last_name: 'Hopper, Rear Admiral', email: 'grace@imp.test' });
    expect((await user('imp-existing')).body.users[0]).toMatchObject({ first_name: 'New', last_name: 'Name' });
    expect((await user('imp-bad')).status).toBe(404);
    const region = await t.db.query<{ value: string }>(
      `SELECT v.value FROM identity.user_custom_field_values v JOIN identity.users u ON u.id = v.user_id JOIN identity.custom_fields f ON f.id = v.custom_field_id
       WHERE u.uid = 'imp-existing' AND f.name = 'Region'`,
    );
    expect(region).toEqual([{ value: 'North' }]);
  });

  it('a second run of the same file changes nothing and says so', async () => {
    const run = await runNow(admin);
    expect(run.counts).toEqual({ created: 0, updated: 0, unchanged: 4, failed: 1 });
    expect(run.changes).toEqual([]);
  });

  it('never deletes: users missing from the file stay', async () => {
    csvBody = 'uid,first_name\r\nimp-ada,Ada\r\n';
    const run = await runNow(admin);
    expect(run.counts).toEqual({ created: 0, updated: 0, unchanged: 1, failed: 0 });
    for (const uid of ['imp-grace', 'imp-existing', 'imp-same']) expect((await user(uid)).status).toBe(200);
  });

  it('reports a row whose cell holds a NUL character (no text column can store one) by its line, and imports the others', async () => {
    csvBody = ['uid,first_name,last_name,email,region', 'imp-nul,Nul\u0000Byte,Row,nul@imp.test,', 'imp-after-nul,After,Nul,after-nul@imp.test,', ''].join('\n');
    const run = await runNow(admin);
    expect(run).toMatchObject({ status: 'complete', rows: 2, counts: { created: 1, updated: 0, unchanged: 0, failed: 1 }, error: null });
    expect(run.errors).toEqual([{ line: 2, field: 'first_name', message: expect.stringMatching(/NUL/) }]);
    expect((await user('imp-nul')).status).toBe(404);
    expect((await user('imp-after-nul')).body.users[0]).toMatchObject({ first_name: 'After' });
  });

  /** Rows sent to identity as jobs-worker sends them (over the bus, sealed), as the account's first administrator. */
  const importRowsAsWorker = async () => {
    const [{ account_id: accountId, id: adminId }] = await t.db.query<{ account_id: number; id: number }>(
      "SELECT account_id, (SELECT id FROM identity.users a WHERE a.account_id = u.account_id AND 'admin' = ANY (a.roles) ORDER BY id LIMIT 1) AS id FROM identity.users u WHERE uid = 'imp-existing'",
    );
    const asker = {
      bus: t.system.bus,
      seal: contextSealFor(loadConfig({ NATS_URL: testNatsUrl()!, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY })),
      timeoutMs: 10_000,
      service: 'identity',
      unavailableCode: 'UNAVAILABLE',
    };
    const ctx = { requestId: 'import', accountId, subAccountId: null, userId: adminId, roles: ['admin' as const] };
    const send = (dryRun: boolean, rows: unknown[]) => requestSigned<ImportRowsReply>(asker, ctx, USER_IMPORT_SUBJECTS.rows, { dry_run: dryRun, rows });
    return { accountId, send };
  };

  // The rows as jobs-worker hands them to identity, so the race meets the pass that writes (a run's dry pass,
  // which counts the changes first, would otherwise be the one to wait).
  (testNatsUrl() ? it : it.skip)('makes a row an update of the user an administrator creates while it is imported, not a failure', async () => {
    const { accountId, send } = await importRowsAsWorker();
    // The administrator's user, not committed yet: the import reads the uid as free, and its insert waits on it.
    const racing = (uid: string, dryRun: boolean) =>
      holdingLock(t.db.url, "INSERT INTO identity.users (account_id, uid, first_name) VALUES ($1, $2, 'Manual')", [accountId, uid], async (held) => {
        const rows = [{ line: 2, user: { uid, first_name: 'Raced', last_name: 'Import' } }];
        const importing = send(dryRun, rows);
        await held.waiters(1);
        await held.release('commit');
        return (await importing).outcomes;
      });
    expect(await racing('imp-raced', false)).toEqual([expect.objectContaining({ line: 2, uid: 'imp-raced', outcome: 'updated' })]);
    expect((await user('imp-raced')).body.users[0]).toMatchObject({ first_name: 'Raced', last_name: 'Import' });
    // A dry run says the same, and writes nothing: its lost insert was undone alone, not its whole transaction.
    expect(await racing('imp-raced-dry', true)).toEqual([expect.objectContaining({ line: 2, uid: 'imp-raced-dry', outcome: 'updated' })]);
    expect((await user('imp-raced-dry')).body.users[0]).toMatchObject({ first_name: 'Manual', last_name: null });
  });

  // A batch is read and written set-based; the rows whose outcome depends on another row of the batch (a uid or
  // hris_id named twice, a manager the batch creates) or that the users API refuses go one by one. Every outcome,
  // error and event is what the rows would get one at a time, in the file's order.
  (testNatsUrl() ? it : it.skip)('answers each row of a mixed batch as the users API would, dry or not, with one event per change', async () => {
    const { accountId, send: sendRows } = await importRowsAsWorker();
    const [{ id: region }] = await t.db.query<{ id: number }>("SELECT id FROM identity.custom_fields WHERE account_id = $1 AND name = 'Region'", [accountId]);
    expect((await admin.post('/api/admin/users', { users: [{ uid: 'mix-locale', first_name: 'Loc' }] })).status).toBe(200);
    const since = new Date().toISOString();
    const rows = [
      { line: 2, user: { uid: 'mix-boss', first_name: 'Boss' } },
      { line: 3, user: { uid: 'mix-a', first_name: 'A', manager_id: 'uid:mix-boss' } },
      { line: 4, user: { uid: 'mix-a', first_name: 'A2' } },
      { line: 5, user: { uid: 'mix-h1', hris_id: 'H-1' } },
      { line: 6, user: { uid: 'mix-h2', hris_id: 'H-1' } },
      { line: 7, user: { uid: 'imp-existing', manager_id: 'uid:imp-same', custom_fields: [{ id: String(region), value: 'West' }] } },
      { line: 8, user: { uid: 'mix-x', custom_fields: [{ id: '999999', value: 'x' }] } },
      { line: 9, user: { uid: 'imp-same', manager_id: 'uid:imp-same' } },
      { line: 10, user: { uid: 'mix-locale', first_name: 'Loc', locale: 'en-us' } },
    ];
    const send = async (dryRun: boolean) =>
      (await sendRows(dryRun, rows)).outcomes.map((o) => [o.line, o.outcome, o.errors?.map((e) => e.field) ?? o.fields?.sort()]);
    const outcomes = (manager: string) => [
      [2, 'created', ['first_name', 'uid']],
      [3, manager, manager === 'failed' ? ['manager_id'] : ['first_name', 'manager_id', 'uid']],
      [4, manager === 'failed' ? 'created' : 'updated', manager === 'failed' ? ['first_name', 'uid'] : ['first_name']],
      [5, 'created', ['hris_id', 'uid']],
      [6, manager === 'failed' ? 'created' : 'failed', manager === 'failed' ? ['hris_id', 'uid'] : ['hris_id']],
      [7, 'updated', [`custom_fields.${region}`, 'manager_id']],
      [8, 'failed', [expect.stringMatching(/^custom_fields/)]],
      [9, 'failed', [expect.anything()]],
      [10, 'updated', ['locale']],
    ];
    // A dry run checks each row against the account as it is: the boss and H-1 are not there yet.
    expect(await send(true)).toEqual(outcomes('failed'));
    expect((await user('mix-boss')).status).toBe(404);
    expect(await send(false)).toEqual(outcomes('created'));
    const [boss, a, existing, same] = await Promise.all(['mix-boss', 'mix-a', 'imp-existing', 'imp-same'].map(async (uid) => (await user(uid)).body.users[0]));
    expect(a).toMatchObject({ first_name: 'A2' });
    expect((await user('mix-locale')).body.users[0]).toMatchObject({ locale: 'en-US' });
    const managers = await t.db.query<{ uid: string; manager_id: number | null; hris_id: string | null }>(
      "SELECT uid, manager_id, hris_id FROM identity.users WHERE account_id = $1 AND uid IN ('mix-a', 'imp-existing', 'mix-h1', 'mix-h2') ORDER BY uid",
      [accountId],
    );
    expect(managers).toEqual([
      { uid: 'imp-existing', manager_id: same.id, hris_id: null },
      { uid: 'mix-a', manager_id: boss.id, hris_id: null },
      { uid: 'mix-h1', manager_id: null, hris_id: 'H-1' },
    ]);
    expect(await t.db.query('SELECT value FROM identity.user_custom_field_values WHERE user_id = $1 AND custom_field_id = $2', [existing.id, region])).toEqual([{ value: 'West' }]);
    const events = await t.db.query<{ type: string; uid: string; n: number }>(
      `SELECT type, payload->'data'->>'uid' AS uid, count(*)::int AS n FROM identity.outbox
        WHERE account_id = $1 AND type IN ('identity.user.created', 'identity.user.updated') AND payload->>'time' > $2
        GROUP BY 1, 2 ORDER BY 2, 1`,
      [accountId, since],
    );
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'identity.user.created', uid: 'mix-a', n: 1 },
        { type: 'identity.user.updated', uid: 'mix-a', n: 1 },
        { type: 'identity.user.created', uid: 'mix-boss', n: 1 },
        { type: 'identity.user.created', uid: 'mix-h1', n: 1 },
        { type: 'identity.user.updated', uid: 'imp-existing', n: 1 },
        { type: 'identity.user.updated', uid: 'mix-locale', n: 1 },
      ]),
    );
    expect(events).toHaveLength(6);
  });

  it('keeps the outcome an attempt recorded when it was lost before the job was marked done: the retry imports nothing again', async () => {
    csvBody = ['uid,first_name', 'imp-lost-1,Lost', 'imp-lost-2,Lost', ''].join('\n');
    // The first attempt's last step, marking its job done, fails, as when its worker is killed just after recording.
    await t.db.query(`CREATE FUNCTION jobs.lose_first_done() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.status = 'done' AND NEW.attempts = 1 AND EXISTS (SELECT 1 FROM jobs.import_runs r WHERE r.job_id = NEW.id) THEN RAISE EXCEPTION 'worker lost'; END IF;
        RETURN NEW; END $$`);
    await t.db.query('CREATE TRIGGER lose_first_done BEFORE UPDATE ON jobs.jobs FOR EACH ROW EXECUTE FUNCTION jobs.lose_first_done()');
    try {
      const fetched = served.length;
      const run = await runNow(admin);
      // A second pass would find both users made and record them unchanged, over the first attempt's outcome.
      expect(run).toMatchObject({ status: 'complete', rows: 2, counts: { created: 2, updated: 0, unchanged: 0, failed: 0 }, error: null });
      const [job] = await t.db.query<{ attempts: number }>('SELECT attempts FROM jobs.jobs WHERE id = $1', [run.id]);
      expect(job.attempts).toBe(2);
      expect(served.length - fetched).toBe(1);
    } finally {
      await t.db.query('DROP TRIGGER lose_first_done ON jobs.jobs');
      await t.db.query('DROP FUNCTION jobs.lose_first_done()');
    }
  });

  it('stops a file that would change more than the allowed share of the users, changing nothing', async () => {
    csvBody = ['uid,first_name', ...Array.from({ length: 40 }, (_, i) => `bulk-${i},Bulk`)].join('\n');
    const run = await runNow(admin);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/would create or update 40 users.*nothing was changed/);
    expect(run.counts).toMatchObject({ created: 40 });
    expect((await user('bulk-0')).status).toBe(404);
    expect((await admin.get('/api/admin/users?search=bulk-')).body.users).toEqual([]);
  });

  it('fails a run the file server refuses (wrong password), with its reason', async () => {
    csvBody = FILE;
    expect((await admin.patch(PROFILE, { csv_password: 'wrong' })).status).toBe(200);
    const run = await runNow(admin);
    expect(run).toMatchObject({ status: 'failed', counts: null, error: expect.stringMatching(/answered 401/) });
    expect(served.at(-1)?.authorized).toBe(false);
    expect((await admin.patch(PROFILE, { csv_password: CSV_PASSWORD })).status).toBe(200);
  });

  it('lists runs newest first, paged, one by id, and none of another account', async () => {
    const all = await admin.get(RUNS);
    expect(all.status).toBe(200);
    const runs = all.body.import_runs as { id: string; created_at: string }[];
    expect(runs.length).toBeGreaterThanOrEqual(6);
    expect(runs.map((r) => r.created_at)).toEqual([...runs.map((r) => r.created_at)].sort().reverse());
    const page = await admin.get(`${RUNS}?per_page=2&page=2`);
    expect(page.body.import_runs.map((r: { id: string }) => r.id)).toEqual(runs.slice(2, 4).map((r) => r.id));
    expect(page.headers.get('link')).toContain('rel="next"');
    expect((await admin.get(`${RUNS}/${runs[0].id}`)).body.import_runs).toEqual([all.body.import_runs[0]]);
    expect((await stranger.get(`${RUNS}/${runs[0].id}`)).status).toBe(404);
    expect((await stranger.get(RUNS)).body.import_runs).toEqual([]);
    expect((await admin.get(`${RUNS}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await admin.get(`${RUNS}/not-a-uuid`)).status).toBe(400);
  });

  describe('without IMPORT_ALLOW_PRIVATE_ADDRESSES', () => {
    it('refuses a private csv_url when it is saved', async () => {
      const res = await locked.api.patch(PROFILE, { csv_url: csvUrl });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'csv_url', message: expect.stringContaining('127.0.0.1') }]);
    });

    it('refuses to fetch from a private address (a profile saved before the setting was turned off), and connects nowhere', async () => {
      expect((await locked.api.patch(PROFILE, { columns: { '0': ['uid'] } })).status).toBe(200);
      await locked.db.query('UPDATE identity.import_profiles SET csv_url = $1', [csvUrl]);
      const before = served.length;
      const run = await runNow(locked.api);
      expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/127\.0\.0\.1.*not a public internet address/) });
      expect(served.length).toBe(before);
    });
  });
});
