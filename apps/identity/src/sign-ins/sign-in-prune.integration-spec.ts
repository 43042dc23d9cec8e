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

  it('deletes sign-ins past the retention but each user\'s latest, in batches, in every account', async () => {
    // User 1: sign-ins 800 and 100 days ago; user 2: only 800 and 760 days ago; user 3 in account 2: 6,000 a thousand days ago and one yesterday.
    await db.manager.query(
      `INSERT INTO identity.sign_ins (account_id, user_id, token_id, signed_in_at, last_seen_at)
       SELECT a, u, 1, now() - make_interval(days => d), now() - make_interval(days => d) + interval '5 minutes'
         FROM (VALUES (1, 1, 800), (1, 1, 100), (1, 2, 800), (1, 2, 760), (2, 3, 1)) AS v (a, u, d)
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
      [2, 3, 1],
    ]);
    expect(await prune.prune(new Date())).toBe(0);
  });
});
