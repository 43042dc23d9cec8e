import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A slide's minutes and attachments get a published side, as its attributes and position have: learners read
 * the copy, so an author's draft change reaches them only with the next publish. A publish sets every slide's
 * `published_at`; a trigger on that copies the figures, so a catalog older than this release, publishing
 * during the rollout, copies them too (it does not know the columns). Adding the columns with constant
 * defaults rewrites no row; the slides published so far get their current values in the next migration.
 */
export class SlidePublishedFigures1768000000000 implements MigrationInterface {
  name = 'SlidePublishedFigures1768000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE catalog.slides ADD COLUMN published_estimated_time integer NOT NULL DEFAULT 0, ADD COLUMN published_attachments jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`
      CREATE FUNCTION catalog.slides_publish_figures() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.published_estimated_time := NEW.estimated_time;
        NEW.published_attachments := NEW.attachments;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER slides_publish_figures BEFORE UPDATE OF published_at ON catalog.slides
      FOR EACH ROW WHEN (NEW.published_at IS DISTINCT FROM OLD.published_at) EXECUTE FUNCTION catalog.slides_publish_figures()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER slides_publish_figures ON catalog.slides');
    await q.query('DROP FUNCTION catalog.slides_publish_figures()');
    await q.query('ALTER TABLE catalog.slides DROP COLUMN published_estimated_time, DROP COLUMN published_attachments');
  }
}

/** The slides published before the columns existed: their current values, the best record of what was published. Its own transaction, apart from the ALTER's lock. */
export class SlidePublishedFiguresBackfill1768000000001 implements MigrationInterface {
  name = 'SlidePublishedFiguresBackfill1768000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query('UPDATE catalog.slides SET published_estimated_time = estimated_time, published_attachments = attachments WHERE position IS NOT NULL');
  }

  async down(): Promise<void> {
    // The columns go with the migration before.
  }
}
