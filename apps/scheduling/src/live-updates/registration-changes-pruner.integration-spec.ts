import { createLogger, type Database, type IdentityDirectory, openDatabase, type Runtime } from '@lms/platform';
import type { RpcRequest } from '@lms/contracts';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import type { RegistrationsService } from '../registrations/registrations.service.js';
import { SCHEDULING_ENTITIES, SCHEDULING_MIGRATIONS } from '../scheduling.module.js';
import { LiveUpdatesHandlers } from './live-updates.handlers.js';
import { RegistrationChangesPruner } from './registration-changes-pruner.js';

const DAY_MS = 86_400_000;

/** The live-updates log's pruning and what a reader is told about it (real Postgres). */
describe('the registration change log prune', () => {
  let testDb: TestDatabase;
  let db: Database;
  let pruner: RegistrationChangesPruner;
  let handlers: LiveUpdatesHandlers;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'scheduling', entities: SCHEDULING_ENTITIES, migrations: SCHEDULING_MIGRATIONS, poolSize: 2 });
    pruner = new RegistrationChangesPruner(db, createLogger('silent'), 7);
    handlers = new LiveUpdatesHandlers(db, {} as RegistrationsService, {} as IdentityDirectory, {} as Runtime);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  /** Changes of finished transactions `xids` in a course of account 1, written `daysAgo`; answers their cursors. */
  const write = async (course: number, xids: number[], daysAgo: number): Promise<string[]> => {
    const rows = (await db.manager.query(
      `INSERT INTO scheduling.registration_changes (xid, account_id, live_course_id, session_id, event_id, type, data, created_at)
       SELECT x::text::xid8, 1, $1, 1, gen_random_uuid(), 'scheduling.registration.created', jsonb_build_object('user_id', x), now() - make_interval(days => $3)
         FROM unnest($2::int[]) AS x RETURNING xid::text || '-' || id::text AS cursor`,
      [course, xids, daysAgo],
    )) as { cursor: string }[];
    return rows.map((r) => r.cursor);
  };
  const changes = (course: number, after?: string) =>
    handlers.changes({ ctx: { requestId: 'r', accountId: 1, subAccountId: null, userId: 1, roles: ['author'] }, params: {}, query: {}, body: { live_course_id: course, ...(after ? { after } : {}) } } as RpcRequest<never>);
  const userIds = (page: { changes: { data: Record<string, unknown> }[] }) => page.changes.map((c) => c.data.user_id);

  it('deletes the changes past the retention, keeps the younger ones, and tells a reader whose cursor it pruned past to start again', async () => {
    const old = await write(10, [100, 101, 102], 8);
    await write(11, [103], 8);
    const young = await write(10, [104, 105], 1);

    // Nothing is pruned yet: a reader anywhere in the log goes on.
    expect(userIds(await changes(10, old[0]))).toEqual([101, 102, 104, 105]);

    expect(await pruner.prune(new Date())).toBe(4);
    const left = (await db.manager.query('SELECT xid::text AS xid FROM scheduling.registration_changes ORDER BY id')) as { xid: string }[];
    expect(left.map((r) => r.xid)).toEqual(['104', '105']);

    // A cursor below the horizon may have missed pruned changes: reset to the horizon, no changes.
    expect(await changes(10, old[1])).toEqual({ changes: [], reset: '103-0' });
    // From the reset on, every kept change; at or past the horizon, a reader goes on as before.
    expect(userIds(await changes(10, '103-0'))).toEqual([104, 105]);
    expect(userIds(await changes(10, young[0]))).toEqual([105]);
    // A new reader starts at the beginning of what is kept.
    expect(userIds(await changes(10))).toEqual([104, 105]);
    expect(await changes(11)).toEqual({ changes: [] });

    // Course 11 lost its one change: its horizon is its own, just past it.
    expect(await changes(11, '104-0')).toEqual({ changes: [] });
    expect(await changes(11, '102-0')).toEqual({ changes: [], reset: '104-0' });
    // A course that lost nothing has no horizon: a reader far behind is not reset.
    expect(await changes(13, '1-1')).toEqual({ changes: [] });
    // Pruning again removes nothing more, and the horizon never moves back.
    expect(await pruner.prune(new Date())).toBe(0);
    expect(await changes(10, old[2])).toEqual({ changes: [], reset: '103-0' });
  });

  it('prunes everything past the retention in batches when nothing younger is kept, and moves no horizon when nothing goes', async () => {
    await db.manager.query('TRUNCATE scheduling.registration_changes, scheduling.registration_changes_pruned');
    // An empty log: no horizon, so no reader is ever told to start again for nothing.
    expect(await pruner.prune(new Date())).toBe(0);
    expect(await db.manager.query('SELECT through FROM scheduling.registration_changes_pruned')).toEqual([]);
    await db.manager.query(
      `INSERT INTO scheduling.registration_changes (xid, account_id, live_course_id, session_id, event_id, type, data, created_at)
       SELECT (10 + x % 90)::text::xid8, 1, 12, 1, gen_random_uuid(), 'scheduling.registration.created', '{}', now() - interval '30 days' FROM generate_series(1, 12000) AS x`,
    );
    // Ten days on, every change is past the retention.
    expect(await pruner.prune(new Date(Date.now() + 10 * DAY_MS))).toBe(12_000);
    // The horizon is just past the newest change that went.
    expect(await db.manager.query('SELECT through::text FROM scheduling.registration_changes_pruned')).toEqual([{ through: '100' }]);
    expect(await pruner.prune(new Date(Date.now() + 10 * DAY_MS))).toBe(0);
    expect(await db.manager.query('SELECT through::text FROM scheduling.registration_changes_pruned')).toEqual([{ through: '100' }]);
  });
});
