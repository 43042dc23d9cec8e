import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A slide's minutes and attachments get a published side, as its attributes and position have: publishing
 * copies them, and learners read the copy, so an author's draft change reaches them only with the next publish.
 * Slides published so far take their current values, the best record there is of what was published.
 */
export class SlidePublishedFigures1768000000000 implements MigrationInterface {
  name = 'SlidePublishedFigures1768000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE catalog.slides ADD COLUMN published_estimated_time integer NOT NULL DEFAULT 0, ADD COLUMN published_attachments jsonb NOT NULL DEFAULT '[]'`);
    await q.query('UPDATE catalog.slides SET published_estimated_time = estimated_time, published_attachments = attachments WHERE position IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.slides DROP COLUMN published_estimated_time, DROP COLUMN published_attachments');
  }
}
