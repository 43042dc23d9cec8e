import { createLogger, type Database, openDatabase } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { IDENTITY_ENTITIES, IDENTITY_MIGRATIONS } from '../identity.module.js';
import { SignInPrune } from './sign-in-prune.js';

/** The prune of old sign-ins (real Postgres). */
describe('the sign-in prune', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'identity', entities: IDENTITY_ENTITIES, migrations: IDENTITY_MIGRATIONS, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('deletes sign-ins last seen before the retention but each user\'s latest started and latest seen, in batches, in every account', async () => {
    // (account, user, started days ago, last seen days ago). User 1: 800/800 and 100/100. User 2: 800/800 and
    // 760/760 only. User 4: a session started 900 days ago still in use, and one of 795 days seen once.
    // User 5: started 900 days ago and seen until 780, and one started 790 days ago seen once: each is a latest.
    // User 3 in account 2: 6,000 a thousand days ago and one yesterday.
    await db.manager.query(
      `INSERT INTO identity.sign_ins (account_id, user_id, token_id, signed_in_at, last_seen_at)
       SELECT a, u, 1, now() - make_interval(days => started), now() - make_interval(days => seen)
         FROM (VALUES (1, 1, 800, 800), (1, 1, 100, 100), (1, 2, 800, 800), (1, 2, 760, 760), (1, 4, 900, 0), (1, 4, 795, 795),
                      (1, 5, 900, 780), (1, 5, 790, 790), (2, 3, 1, 1)) AS v (a, u, started, seen)
       UNION ALL
       SELECT 2, 3, 2, now() - make_interval(days => 1000, secs => x), now() - make_interval(days => 1000, secs => x) FROM generate_series(1, 6000) AS x`,
    );
    const prune = new SignInPrune(db, createLogger('silent'), 730);
    expect(await prune.prune(new Date())).toBe(6_002);
    const left = (await db.manager.query(
      `SELECT account_id, user_id, (now()::date - signed_in_at::date) AS days FROM identity.sign_ins ORDER BY account_id, user_id, signed_in_at`,
    )) as { account_id: number; user_id: number; days: number }[];
    expect(left.map((r) => [r.account_id, r.user_id, r.days])).toEqual([
      [1, 1, 100],
      [1, 2, 760],
      [1, 4, 900],
      [1, 4, 795],
      [1, 5, 900],
      [1, 5, 790],
      [2, 3, 1],
    ]);
    expect(await prune.prune(new Date())).toBe(0);
  });
});
