import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Course enrollments (issue 8): the enrollment rows authoring already counts gain what the enrollment
 * records show (score, progress, expiry), where they came from (a group, a program), and their removal
 * history. One live enrollment per learner and item is a partial unique key, so concurrent enrollments
 * of one user cannot both win. Every index starts with account_id.
 */
export class Enrollments1765400000000 implements MigrationInterface {
  name = 'Enrollments1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE catalog.enrollments
        ADD COLUMN score integer CHECK (score BETWEEN 0 AND 100),
        ADD COLUMN progress real NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 1),
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN group_id integer,
        ADD COLUMN program_id integer,
        ADD COLUMN removal_reason text CHECK (removal_reason IN ('removed', 'user_deleted', 're_enrolled')),
        ADD CONSTRAINT enrollments_state CHECK (state IN ('assigned', 'active', 'complete')),
        ADD CONSTRAINT enrollments_completion CHECK ((state = 'complete') = (completed_at IS NOT NULL))`);
    await q.query(`CREATE UNIQUE INDEX enrollments_live_learner ON catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id) WHERE deleted_at IS NULL`);
    // A course's page (newest first) and a learner's enrollments (withdrawal on user deletion).
    await q.query(`CREATE INDEX enrollments_course_page ON catalog.enrollments (account_id, enrollable_type, enrollable_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX enrollments_user ON catalog.enrollments (account_id, user_id) WHERE deleted_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.enrollments_user');
    await q.query('DROP INDEX catalog.enrollments_course_page');
    await q.query('DROP INDEX catalog.enrollments_live_learner');
    await q.query(`
      ALTER TABLE catalog.enrollments
        DROP CONSTRAINT enrollments_completion, DROP CONSTRAINT enrollments_state,
        DROP COLUMN removal_reason, DROP COLUMN program_id, DROP COLUMN group_id, DROP COLUMN expires_at, DROP COLUMN progress, DROP COLUMN score`);
  }
}
