import type { MigrationInterface, QueryRunner } from 'typeorm';

const REASONS_BEFORE = "'removed', 'user_deleted', 're_enrolled', 'left_group'";

/**
 * Deleting a task withdraws its open enrollments, with their own removal reason (`task_deleted`). The wider check
 * is added NOT VALID: the ACCESS EXCLUSIVE lock of the swap then lasts no scan of the table, whose rows all pass
 * the narrower check anyway; the next migration validates it under a lock that lets reads and writes go on.
 */
export class TaskDeletedRemovals1768100000000 implements MigrationInterface {
  name = 'TaskDeletedRemovals1768100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.enrollments DROP CONSTRAINT enrollments_removal_reason_check');
    await q.query(`ALTER TABLE catalog.enrollments ADD CONSTRAINT enrollments_removal_reason_check
                   CHECK (removal_reason IN (${REASONS_BEFORE}, 'task_deleted')) NOT VALID`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE catalog.enrollments SET removal_reason = 'removed' WHERE removal_reason = 'task_deleted'`);
    await q.query('ALTER TABLE catalog.enrollments DROP CONSTRAINT enrollments_removal_reason_check');
    await q.query(`ALTER TABLE catalog.enrollments ADD CONSTRAINT enrollments_removal_reason_check CHECK (removal_reason IN (${REASONS_BEFORE}))`);
  }
}

/** Validates the check the migration before added NOT VALID (SHARE UPDATE EXCLUSIVE: reads and writes go on). */
export class TaskDeletedRemovalsValidated1768100000001 implements MigrationInterface {
  name = 'TaskDeletedRemovalsValidated1768100000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.enrollments VALIDATE CONSTRAINT enrollments_removal_reason_check');
  }

  async down(): Promise<void> {
    // Validation changes no data.
  }
}
