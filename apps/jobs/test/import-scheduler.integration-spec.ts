import { createLogger, type Database, type MessageBus, openDatabase, Outbox } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { ImportRunsService } from '../src/import-runs/import-runs.service.js';
import { ImportScheduler } from '../src/import-runs/import-scheduler.js';
import { JOBS_MIGRATIONS } from '../src/jobs.module.js';

/**
 * The scheduler on real Postgres, its clock driven through `enqueueDue(now)`: a slot becomes one run
 * however many replicas tick at once, and a restarted replica does not run it again.
 */
describe('import scheduler: one run per slot', () => {
  let testDb: TestDatabase;
  let db: Database;
  const logger = createLogger('silent');
  const config = { intervalMs: 60_000, catchUpMs: 12 * 3_600_000 };

  /** A jobs replica's scheduler: its own service objects over the shared database. */
  const replica = () => new ImportScheduler(db, new ImportRunsService(db, new Outbox(db, 'jobs')), undefined as unknown as MessageBus, logger, config);

  const runs = (account: number) =>
    testDb.query<{ slot: Date; trigger: string; kind: string; status: string }>(
      `SELECT r.slot, r.trigger, j.kind, j.status FROM jobs.import_runs r JOIN jobs.jobs j ON j.id = r.job_id WHERE r.account_id = $1 ORDER BY r.slot`,
      [account],
    );

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'jobs', entities: [], migrations: JOBS_MIGRATIONS, logger });
    // Thursdays and Fridays at 09:30 UTC for account 1; account 2 has no URL; account 3 has no day.
    await testDb.query(
      `INSERT INTO jobs.import_schedules (account_id, csv_days, csv_time, has_url, active_since, event_time) VALUES
         (1, '{f,f,f,f,t,t,f}', '09:30', true, '2026-11-01T00:00:00Z', now()),
         (2, '{t,t,t,t,t,t,t}', '09:30', false, '2026-11-01T00:00:00Z', now()),
         (3, '{f,f,f,f,f,f,f}', '09:30', true, '2026-11-01T00:00:00Z', now())`,
    );
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('enqueues nothing before the slot', async () => {
    expect(await replica().enqueueDue(new Date('2026-11-26T09:29:00Z'))).toEqual([]);
    expect(await runs(1)).toEqual([]);
  });

  it('enqueues the slot once when five replicas tick at the same moment', async () => {
    const now = new Date('2026-11-26T09:30:20Z');
    const results = await Promise.all(Array.from({ length: 5 }, () => replica().enqueueDue(now)));
    expect(results.flat()).toEqual([1]);
    expect(await runs(1)).toEqual([{ slot: new Date('2026-11-26T09:30:00Z'), trigger: 'schedule', kind: 'import', status: 'pending' }]);
    const events = await testDb.query<{ type: string }>(`SELECT type FROM jobs.outbox`);
    expect(events.map((e) => e.type)).toEqual(['jobs.job.requested']);
  });

  it('does not run it again on later ticks, nor after a restart', async () => {
    const scheduler = replica();
    expect(await scheduler.enqueueDue(new Date('2026-11-26T09:31:20Z'))).toEqual([]);
    expect(await replica().enqueueDue(new Date('2026-11-26T20:00:00Z'))).toEqual([]);
    expect(await runs(1)).toHaveLength(1);
  });

  it('runs the next day\'s slot missed while down on start, within the catch-up bound, and not one older', async () => {
    expect(await replica().enqueueDue(new Date('2026-11-27T15:00:00Z'))).toEqual([1]);
    expect((await runs(1)).map((r) => r.slot.toISOString())).toEqual(['2026-11-26T09:30:00.000Z', '2026-11-27T09:30:00.000Z']);
    // Thursday 3 December's slot, seen 13 hours late: skipped (the bound is 12 hours).
    expect(await replica().enqueueDue(new Date('2026-12-03T22:31:00Z'))).toEqual([]);
    expect(await runs(1)).toHaveLength(2);
    expect(await runs(2)).toEqual([]);
    expect(await runs(3)).toEqual([]);
  });
});
