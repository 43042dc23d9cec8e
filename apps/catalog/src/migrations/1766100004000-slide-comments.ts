import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Slide comments and their upvotes (issue 15): one upvote per user and comment is the votes' primary
 * key; the comment keeps the count, changed in the vote's transaction.
 */
export class SlideComments1766100004000 implements MigrationInterface {
  name = 'SlideComments1766100004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.slide_comments (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        course_template_id integer NOT NULL,
        slide_id integer NOT NULL,
        user_id integer NOT NULL,
        body text NOT NULL,
        upvotes_count integer NOT NULL DEFAULT 0 CHECK (upvotes_count >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX slide_comments_slide ON catalog.slide_comments (account_id, slide_id, created_at, id)');
    await q.query(`
      CREATE TABLE catalog.slide_comment_votes (
        account_id integer NOT NULL,
        comment_id integer NOT NULL REFERENCES catalog.slide_comments (id) ON DELETE CASCADE,
        user_id integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, comment_id, user_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.slide_comment_votes');
    await q.query('DROP TABLE catalog.slide_comments');
  }
}
