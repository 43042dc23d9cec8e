import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Learners' live trainings, projected from scheduling's live course enrollment events (issue 15): a
 * learner course is addressed by one id whatever its kind, so these rows draw their ids from the
 * enrollments' sequence and never share one with a course enrollment.
 */
export class LearnerLiveEnrollments1766100000000 implements MigrationInterface {
  name = 'LearnerLiveEnrollments1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.learner_live_enrollments (
        id integer PRIMARY KEY DEFAULT nextval('catalog.enrollments_id_seq'),
        account_id integer NOT NULL,
        live_course_id integer NOT NULL,
        user_id integer NOT NULL,
        scheduling_enrollment_id integer NOT NULL,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        UNIQUE (account_id, scheduling_enrollment_id)
      )`);
    await q.query('CREATE INDEX learner_live_enrollments_user ON catalog.learner_live_enrollments (account_id, user_id) WHERE deleted_at IS NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.learner_live_enrollments');
  }
}
