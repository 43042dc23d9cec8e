import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Learners' answers to quiz slides (issue 8): one row per answer, numbered per enrollment and slide (the
 * unique key is the last word on the attempt count). A slide's answers go with the slide when a publish
 * drops it, an enrollment's with the enrollment row.
 */
export class SlideResponses1766950000000 implements MigrationInterface {
  name = 'SlideResponses1766950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.slide_responses (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        enrollment_id integer NOT NULL REFERENCES catalog.enrollments (id) ON DELETE CASCADE,
        course_template_id integer NOT NULL,
        slide_id integer NOT NULL REFERENCES catalog.slides (id) ON DELETE CASCADE,
        user_id integer NOT NULL,
        attempt integer NOT NULL CHECK (attempt >= 1),
        choice_ids text[] NOT NULL,
        correct boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT slide_responses_attempt UNIQUE (account_id, enrollment_id, slide_id, attempt)
      )`);
    // The reports read a course's answers by slide; the foreign keys' deletes find theirs by slide and enrollment.
    await q.query('CREATE INDEX slide_responses_course ON catalog.slide_responses (account_id, course_template_id, slide_id)');
    await q.query('CREATE INDEX slide_responses_slide ON catalog.slide_responses (slide_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.slide_responses');
  }
}
