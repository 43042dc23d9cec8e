import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Group enrollments: enrolling a group records the group on the course, so learners who join the group
 * later are enrolled too (from identity's membership events). An enrollment that came from a group and
 * was never started leaves with its learner (`left_group`).
 */
export class GroupEnrollments1765410000000 implements MigrationInterface {
  name = 'GroupEnrollments1765410000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.group_enrollments (
        account_id integer NOT NULL,
        group_id integer NOT NULL,
        enrollable_type text NOT NULL CHECK (enrollable_type IN ('CourseTemplate', 'Task')),
        enrollable_id integer NOT NULL,
        required boolean NOT NULL DEFAULT true,
        due_at timestamptz,
        due_given boolean NOT NULL DEFAULT false,
        created_by integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, group_id, enrollable_type, enrollable_id)
      )`);
    await q.query('ALTER TABLE catalog.enrollments DROP CONSTRAINT enrollments_removal_reason_check');
    await q.query(`ALTER TABLE catalog.enrollments ADD CONSTRAINT enrollments_removal_reason_check
                   CHECK (removal_reason IN ('removed', 'user_deleted', 're_enrolled', 'left_group'))`);
    await q.query('CREATE INDEX enrollments_group ON catalog.enrollments (account_id, group_id, user_id) WHERE deleted_at IS NULL AND group_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.enrollments_group');
    await q.query('ALTER TABLE catalog.enrollments DROP CONSTRAINT enrollments_removal_reason_check');
    await q.query(`ALTER TABLE catalog.enrollments ADD CONSTRAINT enrollments_removal_reason_check CHECK (removal_reason IN ('removed', 'user_deleted', 're_enrolled'))`);
    await q.query('DROP TABLE catalog.group_enrollments');
  }
}
