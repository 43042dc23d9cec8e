import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The enrollment settings a published snapshot carries since this release (`publishedFieldsOf`). */
const SETTINGS = ['expires', 'default_days_until_expiration', 'auto_re_enroll', 're_enrollment_period', 'retain', 'retain_intervals'];
const BATCH = 5_000;

/**
 * A course's expiry, re-enrollment and retain settings join its published snapshot, so learners' enrollments
 * follow the published course rather than its draft. A trigger gives a snapshot written without them the
 * row's values: a catalog older than this release, publishing or cloning during the rollout, leaves them out.
 * Written in the publish's statement, they are the values being published, as this release's own snapshot
 * holds them (its keys win). The trigger can go once no older catalog runs.
 */
export class CoursePublishedSettings1768400000000 implements MigrationInterface {
  name = 'CoursePublishedSettings1768400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION catalog.course_templates_published_settings() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.published := jsonb_build_object(${SETTINGS.map((key) => `'${key}', NEW.${key}`).join(', ')}) || NEW.published;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER course_templates_published_settings BEFORE INSERT OR UPDATE OF published ON catalog.course_templates
      FOR EACH ROW WHEN (NEW.published IS NOT NULL) EXECUTE FUNCTION catalog.course_templates_published_settings()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER course_templates_published_settings ON catalog.course_templates');
    await q.query('DROP FUNCTION catalog.course_templates_published_settings()');
  }
}

/**
 * The snapshots published before: the settings as they are now, which learners' enrollments followed until
 * this release (the best record of what was published); from then on a draft change waits for the publish.
 * Writing `published` again is enough, the trigger above adds the keys. Outside a transaction, in batches of
 * 5,000 courses by id that each commit alone: a batch holds its rows for about 0.2 s, where one statement held
 * 100,000 courses for 3 s, keeping their edits, publishes and enrollments waiting. A run cut short is taken
 * up again; rows done already are passed over.
 */
export class CoursePublishedSettingsBackfill1768400000001 implements MigrationInterface {
  name = 'CoursePublishedSettingsBackfill1768400000001';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (let after = 0; ; ) {
      const [{ last }] = (await q.query(
        `WITH batch AS (SELECT id FROM catalog.course_templates WHERE id > $1 ORDER BY id LIMIT ${BATCH}),
              filled AS (UPDATE catalog.course_templates c SET published = c.published FROM batch
                          WHERE c.id = batch.id AND c.published IS NOT NULL AND NOT c.published ?& $2::text[])
         SELECT max(id) AS last FROM batch`,
        [after, SETTINGS],
      )) as { last: number | null }[];
      if (last === null) return;
      after = last;
    }
  }

  async down(): Promise<void> {
    // The keys stay: code before this release ignores them.
  }
}
