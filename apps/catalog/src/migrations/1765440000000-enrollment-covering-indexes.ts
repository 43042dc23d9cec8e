import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A course's live enrollments in one covering index: its page (newest first), its totals by state and
 * its counts read the index alone (index-only scans), not 100,000 heap rows. Removed ones (history)
 * have their own index, so they cost the live reads nothing.
 */
export class EnrollmentCoveringIndexes1765440000000 implements MigrationInterface {
  name = 'EnrollmentCoveringIndexes1765440000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.enrollments_course_page');
    await q.query(`CREATE INDEX enrollments_course_live ON catalog.enrollments (account_id, enrollable_type, enrollable_id, created_at DESC, id DESC)
                   INCLUDE (state, required, started_at, completed_at, due_at, sub_account_id, user_id) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX enrollments_course_history ON catalog.enrollments (account_id, enrollable_type, enrollable_id, created_at DESC, id DESC)
                   WHERE deleted_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.enrollments_course_history');
    await q.query('DROP INDEX catalog.enrollments_course_live');
    await q.query('CREATE INDEX enrollments_course_page ON catalog.enrollments (account_id, enrollable_type, enrollable_id, created_at DESC, id DESC)');
  }
}
