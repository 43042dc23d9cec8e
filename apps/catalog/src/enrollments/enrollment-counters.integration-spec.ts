import { type Database, openDatabase } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import pg from 'pg';
import { CATALOG_ENTITIES, CATALOG_MIGRATIONS } from '../catalog.module.js';

/** The enrollment counters (real Postgres, catalog's migrations): whatever statements write, they are the rows' own count. */
describe('the enrollment counters', () => {
  let testDb: TestDatabase;
  let db: Database;
  let course: number;
  let task: number;
  let otherCourse: number;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'catalog', entities: CATALOG_ENTITIES, migrations: CATALOG_MIGRATIONS, poolSize: 2 });
    const courseIn = async (account: number, subAccount: number | null) =>
      (await sql<{ id: number }>(
        `INSERT INTO catalog.course_templates (account_id, sub_account_id, author_id, title, course_type, external_status) VALUES ($1, $2, 1, 'Counted', 'native', 'inapplicable') RETURNING id`,
        [account, subAccount],
      ))[0]!.id;
    course = await courseIn(1, 10);
    otherCourse = await courseIn(2, null);
    task = (await sql<{ id: number }>(`INSERT INTO catalog.tasks (account_id, sub_account_id, author_id, title) VALUES (1, 10, 1, 'Counted task') RETURNING id`))[0]!.id;
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const sql = <T>(text: string, values: unknown[] = []): Promise<T[]> => testDb.query(text, values) as Promise<T[]>;

  /** The counters as kept, and as counted from the rows now (the first migration's backfill), nonzero items only. */
  const kept = () => sql<Record<string, unknown>>('SELECT account_id, enrollable_type, enrollable_id, live, required, finished, not_started, shared FROM catalog.enrollment_counters WHERE (live, required, finished, not_started, shared) <> (0, 0, 0, 0, 0) ORDER BY 1, 2, 3');
  const counted = () =>
    sql(`SELECT e.account_id, e.enrollable_type, e.enrollable_id, sum(s.live)::int AS live, sum(s.required)::int AS required, sum(s.finished)::int AS finished,
                sum(s.not_started)::int AS not_started, sum(s.shared)::int AS shared
           FROM catalog.enrollments e, LATERAL catalog.enrollment_share(e, 1) s
          GROUP BY 1, 2, 3 HAVING (sum(s.live), sum(s.required), sum(s.finished), sum(s.not_started), sum(s.shared)) <> (0, 0, 0, 0, 0) ORDER BY 1, 2, 3`);
  const expectExact = async () => expect(await kept()).toEqual(await counted());

  it('counts every statement that writes enrollments, one row or thousands, over several items and accounts', async () => {
    // One statement over three items of two accounts: learners 1..3000, every third optional, some of another sub-account.
    await sql(
      `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, sub_account_id, required)
       SELECT CASE WHEN n % 5 = 0 THEN 2 ELSE 1 END, CASE WHEN n % 2 = 0 THEN 'Task' ELSE 'CourseTemplate' END,
              CASE WHEN n % 5 = 0 THEN $3::int WHEN n % 2 = 0 THEN $2::int ELSE $1::int END, n, CASE WHEN n % 7 = 0 THEN 11 ELSE 10 END, n % 3 <> 0
         FROM generate_series(1, 3000) AS n`,
      [course, task, otherCourse],
    );
    const [one] = await kept();
    expect(one).toMatchObject({ account_id: 1, enrollable_type: 'CourseTemplate', enrollable_id: course });
    await expectExact();

    await sql(`UPDATE catalog.enrollments SET started_at = now() WHERE user_id % 4 = 0`);
    await expectExact();
    await sql(`UPDATE catalog.enrollments SET completed_at = now(), state = 'complete', progress = 1 WHERE user_id % 8 = 0`);
    await expectExact();
    // Columns no counter reads: nothing is written to the counters (an update, even of nothing, gives a row a new xmin).
    const versions = () => sql<{ xmin: string }>('SELECT xmin::text FROM catalog.enrollment_counters ORDER BY 1');
    const before = await versions();
    await sql(`UPDATE catalog.enrollments SET progress = 0.5, score = 70 WHERE user_id % 3 = 0`);
    expect(await versions()).toEqual(before);
    await expectExact();
    await sql(`UPDATE catalog.enrollments SET required = NOT required, sub_account_id = NULL WHERE user_id % 9 = 0`);
    await expectExact();
    // A deleted task's withdrawal: one statement over every open enrollment of the item.
    await sql(`UPDATE catalog.enrollments SET deleted_at = now(), removal_reason = 'task_deleted' WHERE enrollable_type = 'Task' AND enrollable_id = $1 AND completed_at IS NULL`, [task]);
    await expectExact();
    const withdrawn = (await kept()).find((c) => c.enrollable_type === 'Task') as { live: number; finished: number; not_started: number };
    expect(withdrawn.live).toBeGreaterThan(0);
    expect(withdrawn).toMatchObject({ finished: withdrawn.live, not_started: 0 });
    // An enrollment moved to another item, a repeated insert that the live-learner key skips, and hard deletes.
    await sql(`UPDATE catalog.enrollments SET enrollable_id = $1 WHERE enrollable_id = $2 AND user_id IN (1, 3)`, [task, course]);
    await sql(
      `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, sub_account_id) SELECT 1, 'CourseTemplate', $1, n, 10 FROM generate_series(1, 20) AS n ON CONFLICT DO NOTHING`,
      [course],
    );
    await expectExact();
    await sql(`DELETE FROM catalog.enrollments WHERE user_id % 6 = 1`);
    await expectExact();
  });

  it('stays exact under concurrent writers of the same items', async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, async () => {
      const client = new pg.Client({ connectionString: testDb.url });
      await client.connect();
      return client;
    }));
    try {
      await Promise.all(
        clients.map(async (client, i) => {
          for (let round = 0; round < 10; round++) {
            await client.query('BEGIN');
            await client.query(
              `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, sub_account_id)
               SELECT 1, t, CASE t WHEN 'Task' THEN $2::int ELSE $1::int END, $3::int + n, 10 FROM unnest(ARRAY['CourseTemplate', 'Task']) AS t, generate_series(1, 5) AS n`,
              [course, task, 100_000 + i * 1_000 + round * 10],
            );
            await client.query(`UPDATE catalog.enrollments SET started_at = now() WHERE user_id BETWEEN $1 AND $1 + 2`, [100_000 + i * 1_000 + round * 10]);
            await client.query(round % 3 === 0 ? 'ROLLBACK' : 'COMMIT');
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
    await expectExact();
  });

  it('passes over a statement of 20,000 rows that changes no counted column: no counter written (its speed is docs/performance.md\'s)', async () => {
    const [{ id: big }] = await sql<{ id: number }>(
      `INSERT INTO catalog.course_templates (account_id, author_id, title, course_type, external_status) VALUES (3, 1, 'Big', 'native', 'inapplicable') RETURNING id`,
    );
    await sql(`INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id) SELECT 3, 'CourseTemplate', $1, n FROM generate_series(1, 20000) AS n`, [big]);
    const versions = () => sql<{ xmin: string }>('SELECT xmin::text FROM catalog.enrollment_counters WHERE account_id = 3');
    const before = await versions();
    await sql('UPDATE catalog.enrollments SET score = 40, progress = 0.5 WHERE account_id = 3 AND enrollable_id = $1', [big]);
    expect(await versions()).toEqual(before);
    await expectExact();
  });
});
