import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Deleting a task withdraws its open enrollments, with their own removal reason (`task_deleted`). */
export class TaskDeletedRemovals1768100000000 implements MigrationInterface {
  name = 'TaskDeletedRemovals1768100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.enrollments DROP CONSTRAINT enrollments_removal_reason_check');
    await q.query(`ALTER TABLE catalog.enrollments ADD CONSTRAINT enrollments_removal_reason_check
                   CHECK (removal_reason IN ('removed', 'user_deleted', 're_enrolled', 'left_group', 'task_deleted'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE catalog.enrollments SET removal_reason = 'removed' WHERE removal_reason = 'task_deleted'`);
    await q.query('ALTER TABLE catalog.enrollments DROP CONSTRAINT enrollments_removal_reason_check');
    await q.query(`ALTER TABLE catalog.enrollments ADD CONSTRAINT enrollments_removal_reason_check
                   CHECK (removal_reason IN ('removed', 'user_deleted', 're_enrolled', 'left_group'))`);
  }
}
