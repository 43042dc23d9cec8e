import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retain quizzes (issue 15): one per `retain_intervals` day count of a course, made when a learner's
 * enrollment in it completes; the unique key makes that once however often the completion is seen.
 * `scheduled` and `current` are not stored: a quiz is current once `due_at` has passed (docs/learner.md).
 */
export class RetainQuizzes1766100001000 implements MigrationInterface {
  name = 'RetainQuizzes1766100001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.retain_quizzes (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        enrollment_id integer NOT NULL,
        course_template_id integer NOT NULL,
        user_id integer NOT NULL,
        interval_days integer NOT NULL CHECK (interval_days >= 0),
        due_at timestamptz NOT NULL,
        progress real NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 1),
        score integer CHECK (score BETWEEN 0 AND 100),
        current_question_id text,
        started_at timestamptz,
        ended_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, enrollment_id, interval_days)
      )`);
    await q.query('CREATE INDEX retain_quizzes_user ON catalog.retain_quizzes (account_id, user_id, due_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.retain_quizzes');
  }
}
