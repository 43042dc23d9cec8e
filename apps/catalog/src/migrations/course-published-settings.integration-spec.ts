import { type Database, openDatabase } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { CATALOG_ENTITIES, CATALOG_MIGRATIONS } from '../catalog.module.js';
import { CoursePublishedSettings1768400000000, CoursePublishedSettingsBackfill1768400000001 } from './1768400000000-course-published-settings.js';

/** The course's enrollment settings in its published snapshot: the snapshots of before, and an older catalog's writes (real Postgres). */
describe('migration 1768400000000: course published settings', () => {
  let testDb: TestDatabase;
  let db: Database;

  const before = CATALOG_MIGRATIONS.filter((m) => m !== CoursePublishedSettings1768400000000 && m !== CoursePublishedSettingsBackfill1768400000001);
  const settingsOf = async (id: number) =>
    ((await db.manager.query(
      `SELECT published->'expires' AS expires, published->'default_days_until_expiration' AS days, published->'auto_re_enroll' AS auto,
              published->'re_enrollment_period' AS period, published->'retain' AS retain, published->'retain_intervals' AS intervals, published->>'title' AS title
         FROM catalog.course_templates WHERE id = $1`,
      [id],
    )) as Record<string, unknown>[])[0];
  /** A course as a catalog before this release wrote it: the settings in their columns, none in its snapshot. */
  const olderCourse = async (published: Record<string, unknown> | null) =>
    ((await db.manager.query(
      `INSERT INTO catalog.course_templates (account_id, author_id, title, course_type, external_status, uuid, expires, default_days_until_expiration,
                                              auto_re_enroll, re_enrollment_period, retain, retain_intervals, published, is_published)
       VALUES (1, 1, 'Old', 'native', 'inapplicable', gen_random_uuid(), true, 10, true, 3, true, '{3,7}', $1, $1::jsonb IS NOT NULL) RETURNING id`,
      [published === null ? null : JSON.stringify(published)],
    )) as { id: number }[])[0].id;
  const expected = { expires: true, days: 10, auto: true, period: 3, retain: true, intervals: [3, 7] };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'catalog', entities: CATALOG_ENTITIES, migrations: before, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('gives the snapshots of before the settings as they are, leaves drafts alone, then fills in what an older catalog writes without them', async () => {
    const published = await olderCourse({ title: 'Old' });
    const draft = await olderCourse(null);
    const runner = db.manager.connection.createQueryRunner();
    try {
      await new CoursePublishedSettings1768400000000().up(runner);
      await new CoursePublishedSettingsBackfill1768400000001().up(runner);
    } finally {
      await runner.release();
    }
    expect(await settingsOf(published)).toEqual({ ...expected, title: 'Old' });
    expect(await settingsOf(draft)).toEqual({ expires: null, days: null, auto: null, period: null, retain: null, intervals: null, title: null });

    // An older catalog's publish, and its clone (an insert of the copied row): the row's settings, the values being published.
    await db.manager.query(`UPDATE catalog.course_templates SET published = '{"title": "Republished"}', retain_intervals = '{1}' WHERE id = $1`, [published]);
    expect(await settingsOf(published)).toEqual({ ...expected, intervals: [1], title: 'Republished' });
    expect(await settingsOf(await olderCourse({ title: 'Cloned' }))).toEqual({ ...expected, title: 'Cloned' });
    // This release's snapshot carries them itself, and they win.
    await db.manager.query(`UPDATE catalog.course_templates SET published = '{"title": "New", "retain": false, "retain_intervals": []}' WHERE id = $1`, [published]);
    expect(await settingsOf(published)).toEqual({ ...expected, retain: false, intervals: [], title: 'New' });
  });
});
