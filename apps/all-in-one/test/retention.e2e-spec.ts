import { randomUUID } from 'node:crypto';
import { eventually, queryDatabase, type TestCast, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const DOWNLOADS = '/api/downloads';

/** The retention sweep of jobs-worker (docs/jobs.md "Retention"), with a 1 s interval and 1-day retention. */
describe('retention of finished work', () => {
  const settings = { RETENTION_INTERVAL_MS: '1000', DOWNLOAD_RETENTION_DAYS: '1', NOTIFICATION_RETENTION_DAYS: '1' };
  const saved: Record<string, string | undefined> = {};
  let t: TestSystem;
  let cast: TestCast;
  let admin: TestUser;

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

  beforeAll(async () => {
    // jobs-worker reads these at start, from its environment.
    for (const [key, value] of Object.entries(settings)) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
    t = await startTestSystem();
    cast = await t.factory.cast();
    admin = await t.factory.user(cast.accountId, ['admin']);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
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
    const insert = (status: string, age: string) =>
      queryDatabase<{ id: string }>(
        t.db.url,
        `INSERT INTO jobs.notification_deliveries (account_id, event_id, event_type, notification_type, user_id, channel, status, updated_at)
         VALUES ($1, $2, 'test.event', 'welcome', $3, 'email', $4, now() - $5::interval) RETURNING id`,
        [cast.accountId, randomUUID(), admin.userId, status, age],
      );
    const [oldSent] = await insert('sent', '2 days');
    const [oldSkipped] = await insert('skipped', '2 days');
    const [oldPending] = await insert('pending', '2 days');
    const [oldSending] = await insert('sending', '2 days');
    const [newSent] = await insert('sent', '1 hour');
    const ids = () => queryDatabase<{ id: string }>(t.db.url, 'SELECT id FROM jobs.notification_deliveries WHERE id = ANY($1::bigint[]) ORDER BY id', [[oldSent, oldSkipped, oldPending, oldSending, newSent].map((r) => r.id)]);
    await eventually(async () => ((await ids()).length === 3 ? true : undefined), 15_000, 200);
    expect((await ids()).map((r) => r.id)).toEqual([oldPending.id, oldSending.id, newSent.id]);
  }, 30_000);
});
