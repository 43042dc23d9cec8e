import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The learners' open enrollments and due dates, projected from catalog's enrollment events (group learners' next_due_date). */
export class LearnerEnrollments1765500000000 implements MigrationInterface {
  name = 'LearnerEnrollments1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE identity.learner_enrollments (
      account_id integer NOT NULL,
      enrollment_id integer NOT NULL,
      user_id integer NOT NULL,
      open boolean NOT NULL,
      due_at timestamptz,
      event_time timestamptz NOT NULL,
      PRIMARY KEY (account_id, enrollment_id))`);
    await q.query('CREATE INDEX learner_enrollments_open ON identity.learner_enrollments (account_id, user_id, due_at) WHERE open');
    // The completed courses a group learner shows are counted per user.
    await q.query("CREATE INDEX user_completions_user_course ON identity.user_completions (account_id, user_id) WHERE kind = 'course'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX identity.user_completions_user_course');
    await q.query('DROP TABLE identity.learner_enrollments');
  }
}
