import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createFileStore, type FileStore, loadConfig } from '@lms/platform';
import { deleteNamespaceStreams, eventually, queryDatabase, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestCast, type TestUser, uniqueName } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const DOWNLOADS = '/api/downloads';

/** The retention sweep of jobs-worker (docs/jobs.md "Retention"), with a 1 s interval and 1-day retention; the file sweep every second, on files of any age. */
describe('retention of finished work', () => {
  const settings = { RETENTION_INTERVAL_MS: '1000', DOWNLOAD_RETENTION_DAYS: '1', NOTIFICATION_RETENTION_DAYS: '1', IMPORT_RUN_RETENTION_DAYS: '8', FILE_SWEEP_INTERVAL_MS: '1000', FILE_SWEEP_MIN_AGE_MS: '0' };
  const namespace = uniqueName('retention');
  const natsUrl = testNatsUrl();
  const saved: Record<string, string | undefined> = {};
  let t: TestSystem;
  let cast: TestCast;
  let admin: TestUser;
  /** The store jobs-worker writes, as the system configures it. */
  let files: FileStore;
  /** What the sweeps said they removed. */
  const swept: { downloads: number; dumps: number; deliveries: number }[] = [];

  const finishedDownload = async () => {
    const api = t.api.as(admin.token);
    const { id } = (await api.post(DOWNLOADS, { download: { download_type: 'users' } })).body.download as { id: string };
    await eventually(async () => ((await api.get(`${DOWNLOADS}/${id}`)).body.download?.state === 'done' ? true : undefined), 30_000, 100);
    return id;
  };
  /** The signed URL the download's file redirects to. */
  const signedUrl = async (id: string) => {
    const redirect = await t.api.as(admin.token).get(`${DOWNLOADS}/${id}/file`);
    expect(redirect.status).toBe(302);
    return `${t.system.url}${redirect.headers.get('location')}`;
  };

  /** A notification delivery in `status`, last touched `age` ago. */
  const insertDelivery = (status: string, age: string) =>
    queryDatabase<{ id: string }>(
      t.db.url,
      `INSERT INTO jobs.notification_deliveries (account_id, event_id, event_type, notification_type, user_id, channel, status, updated_at)
       VALUES ($1, $2, 'test.event', 'welcome', $3, 'email', $4, now() - $5::interval) RETURNING id`,
      [cast.accountId, randomUUID(), admin.userId, status, age],
    );

  beforeAll(async () => {
    // jobs-worker reads these at start, from its environment.
    for (const [key, value] of Object.entries(settings)) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) {
          const entry = JSON.parse(line) as { msg: string; downloads: number; dumps: number; deliveries: number };
          if (entry.msg === 'retention sweep removed finished work') swept.push({ downloads: entry.downloads, dumps: entry.dumps, deliveries: entry.deliveries });
        }
        done();
      },
    });
    t = await startTestSystem({ NATS_NAMESPACE: namespace }, undefined, pino({ level: 'info' }, sink));
    files = createFileStore(loadConfig({ NATS_NAMESPACE: namespace, ...(natsUrl ? { NATS_URL: natsUrl, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY } : {}) }), t.system.bus, { writer: true });
    cast = await t.factory.cast();
    admin = await t.factory.user(cast.accountId, ['admin']);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (natsUrl) await deleteNamespaceStreams(natsUrl, namespace);
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('removes a download finished longer ago than the retention, with its file, and keeps a recent one', async () => {
    const old = await finishedDownload();
    const recent = await finishedDownload();
    const oldFile = await signedUrl(old);
    expect((await fetch(oldFile)).status).toBe(200);
    await queryDatabase(t.db.url, "UPDATE jobs.jobs SET finished_at = now() - interval '25 hours' WHERE id = $1", [old]);

    await eventually(async () => ((await t.api.as(admin.token).get(`${DOWNLOADS}/${old}`)).status === 404 ? true : undefined), 15_000, 200);
    expect((await queryDatabase(t.db.url, 'SELECT 1 FROM jobs.jobs WHERE id = $1', [old])).length).toBe(0);
    // The file went with it: its signed URL, still within its lifetime, finds nothing.
    expect((await fetch(oldFile)).status).toBe(404);
    expect((await fetch(await signedUrl(recent))).status).toBe(200);
    expect((await t.api.as(admin.token).get(`${DOWNLOADS}/${recent}`)).body.download.state).toBe('done');
  }, 60_000);

  it('removes a data dump a newer one replaced, with its file, once no signed URL of it can still be valid', async () => {
    const api = t.api.as(admin.token);
    const dumps = () => queryDatabase<{ id: string; status: string }>(t.db.url, "SELECT id, status FROM jobs.jobs WHERE account_id = $1 AND kind = 'data_dump' ORDER BY created_at", [cast.accountId]);
    /** Asks for a dump, waits for it, and answers the signed URL the download now redirects to. */
    const completeDump = async () => {
      expect((await api.post('/api/admin/data_dumps', { only: ['groups'] })).status).toBe(200);
      await eventually(async () => ((await api.get('/api/admin/data_dumps')).body.data_dumps[0]?.status === 'complete' ? true : undefined), 30_000, 100);
      const redirect = await api.get('/api/admin/data_dumps/download');
      expect(redirect.status).toBe(302);
      return `${t.system.url}${redirect.headers.get('location')}`;
    };
    const first = await completeDump();
    const second = await completeDump();
    expect(second).not.toBe(first);
    // Replaced, but a URL handed out before the second one was complete still serves the first.
    const [replaced, current] = await dumps();
    expect([replaced.status, current.status]).toEqual(['done', 'done']);
    expect((await fetch(first)).status).toBe(200);
    // A dump from before each had its own file: its row names the current dump's file, which must stay.
    await queryDatabase(
      t.db.url,
      `INSERT INTO jobs.jobs (id, account_id, kind, status, file_key, file_name, created_at, finished_at)
       SELECT gen_random_uuid(), account_id, kind, 'done', file_key, file_name, created_at - interval '1 hour', finished_at - interval '1 hour' FROM jobs.jobs WHERE id = $1`,
      [current.id],
    );

    await queryDatabase(t.db.url, "UPDATE jobs.jobs SET finished_at = now() - interval '6 minutes' WHERE id = $1", [current.id]);
    await eventually(async () => ((await dumps()).length === 1 ? true : undefined), 15_000, 200);
    expect((await dumps()).map((d) => d.id)).toEqual([current.id]);
    expect((await fetch(first)).status).toBe(404);
    expect((await fetch(second)).status).toBe(200);
  }, 60_000);

  it('removes settled notification deliveries past the retention, and never a pending or sending one', async () => {
    swept.length = 0;
    const [oldSent] = await insertDelivery('sent', '2 days');
    const [oldSkipped] = await insertDelivery('skipped', '2 days');
    const [oldPending] = await insertDelivery('pending', '2 days');
    const [oldSending] = await insertDelivery('sending', '2 days');
    const [newSent] = await insertDelivery('sent', '1 hour');
    // More than one batch (500) of old settled ones: a sweep goes on until they are all gone, and says how many.
    await queryDatabase(
      t.db.url,
      `INSERT INTO jobs.notification_deliveries (account_id, event_id, event_type, notification_type, user_id, channel, status, updated_at)
       SELECT $1, gen_random_uuid()::text, 'test.event', 'welcome', $2, 'email', 'sent', now() - interval '3 days' FROM generate_series(1, 510)`,
      [cast.accountId, admin.userId],
    );
    const ids = () => queryDatabase<{ id: string }>(t.db.url, 'SELECT id FROM jobs.notification_deliveries WHERE id = ANY($1::bigint[]) ORDER BY id', [[oldSent, oldSkipped, oldPending, oldSending, newSent].map((r) => r.id)]);
    const old = () => queryDatabase(t.db.url, "SELECT 1 FROM jobs.notification_deliveries WHERE status IN ('sent', 'failed', 'skipped') AND updated_at < now() - interval '1 day'");
    await eventually(async () => ((await ids()).length === 3 && (await old()).length === 0 ? true : undefined), 15_000, 200);
    expect((await ids()).map((r) => r.id)).toEqual([oldPending.id, oldSending.id, newSent.id]);
    expect(swept.reduce((n, s) => n + s.deliveries, 0)).toBe(512);
  }, 30_000);

  it('settles as failed a delivery left pending or sending for a week (its event dead-lettered), and removes it only after the retention', async () => {
    const rows = [await insertDelivery('pending', '8 days'), await insertDelivery('sending', '8 days'), await insertDelivery('pending', '6 days')].map(([r]) => r.id);
    const states = () =>
      queryDatabase<{ status: string; error: string | null }>(t.db.url, 'SELECT status, error FROM jobs.notification_deliveries WHERE id = ANY($1::bigint[]) ORDER BY id', [rows]);
    await eventually(async () => ((await states())[0].status === 'failed' ? true : undefined), 15_000, 200);
    expect(await states()).toEqual([
      { status: 'failed', error: 'abandoned: no attempt for 7 days (its event was dead-lettered)' },
      { status: 'failed', error: 'abandoned: no attempt for 7 days (its event was dead-lettered)' },
      { status: 'pending', error: null },
    ]);
  }, 30_000);

  it('removes finished import runs past the retention, but each account\'s latest, which may be older', async () => {
    const run = async (accountId: number, daysAgo: number) => {
      const id = randomUUID();
      await queryDatabase(
        t.db.url,
        `INSERT INTO jobs.jobs (id, account_id, kind, status, created_at, finished_at) VALUES ($1, $2, 'import', 'done', now() - make_interval(days => $3 + 1), now() - make_interval(days => $3))`,
        [id, accountId, daysAgo],
      );
      await queryDatabase(t.db.url, `INSERT INTO jobs.import_runs (job_id, account_id, trigger, created_at) VALUES ($1, $2, 'manual', now() - make_interval(days => $3 + 1))`, [id, accountId, daysAgo]);
      return id;
    };
    // Accounts of their own: this database's accounts may have import runs of their schedules.
    const [one, another] = [900_001, 900_002];
    const [older, latest, alone] = [await run(one, 20), await run(one, 10), await run(another, 30)];
    const left = () => queryDatabase<{ job_id: string }>(t.db.url, 'SELECT job_id FROM jobs.import_runs WHERE job_id = ANY($1::uuid[]) ORDER BY created_at', [[older, latest, alone]]);
    await eventually(async () => ((await left()).length === 2 ? true : undefined), 15_000, 200);
    // The 20-day run went: a newer one is its account's latest. The 10- and 30-day runs are each account's latest.
    expect((await left()).map((r) => r.job_id)).toEqual([alone, latest]);
  }, 30_000);

  it('removes job files no job names, and keeps every file a job names or an unfinished job may yet name', async () => {
    const [named, unfinished] = [await finishedDownload(), await finishedDownload()];
    const keyOf = async (id: string) => (await queryDatabase<{ file_key: string }>(t.db.url, 'SELECT file_key FROM jobs.jobs WHERE id = $1', [id]))[0].file_key;
    const namedKey = await keyOf(named);
    await queryDatabase(t.db.url, "UPDATE jobs.jobs SET status = 'running' WHERE id = $1", [unfinished]);
    const put = (key: string) => files.put(key, [Buffer.from(key)]);
    const noJob = `jobs/${randomUUID()}/1/users.csv`; // a forgotten dump's, say: its row is gone
    const notNamed = `jobs/${named}/7/users.csv`; // an attempt's the job does not name
    const mayBeNamed = `jobs/${unfinished}/2/users.csv`; // its attempt may still record it
    const notOurs = 'reports/users.csv';
    for (const key of [noJob, notNamed, mayBeNamed, notOurs]) await put(key);
    const exists = async (key: string) => (await files.open(key).then((f) => (f?.stream.destroy(), f !== undefined)));

    await eventually(async () => (!(await exists(noJob)) && !(await exists(notNamed)) ? true : undefined), 15_000, 200);
    expect(await exists(namedKey)).toBe(true);
    expect(await exists(mayBeNamed)).toBe(true);
    expect(await exists(notOurs)).toBe(true);
    expect((await fetch(await signedUrl(named))).status).toBe(200);

    // Finished without naming it, the job's extra file goes too.
    await queryDatabase(t.db.url, "UPDATE jobs.jobs SET status = 'done' WHERE id = $1", [unfinished]);
    await eventually(async () => (!(await exists(mayBeNamed)) ? true : undefined), 15_000, 200);
    expect(await exists(await keyOf(unfinished))).toBe(true);
    await files.delete(notOurs);
  }, 60_000);
});
