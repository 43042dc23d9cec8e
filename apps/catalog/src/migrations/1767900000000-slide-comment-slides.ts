import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A slide's comments (and through them their votes) go with the slide, as its answers do: a publish deletes
 * the slides drafts removed, and their comments were left behind, unreachable. Those left so far go now;
 * the table is held against inserts meanwhile (a replica still running the old code), so the key holds.
 */
export class SlideCommentSlides1767900000000 implements MigrationInterface {
  name = 'SlideCommentSlides1767900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('LOCK TABLE catalog.slide_comments IN SHARE ROW EXCLUSIVE MODE');
    await q.query('DELETE FROM catalog.slide_comments c WHERE NOT EXISTS (SELECT 1 FROM catalog.slides s WHERE s.id = c.slide_id)');
    await q.query('ALTER TABLE catalog.slide_comments ADD CONSTRAINT slide_comments_slide_fk FOREIGN KEY (slide_id) REFERENCES catalog.slides (id) ON DELETE CASCADE');
    // The cascade finds a slide's comments by slide alone.
    await q.query('CREATE INDEX slide_comments_slide_id ON catalog.slide_comments (slide_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.slide_comments_slide_id');
    await q.query('ALTER TABLE catalog.slide_comments DROP CONSTRAINT slide_comments_slide_fk');
  }
}
