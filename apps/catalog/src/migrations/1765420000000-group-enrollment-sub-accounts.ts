import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An enrollment belongs to the sub-account it was made from (the enrolling author's current one), which
 * `has_shared_enrollments` compares with the course's; a group enrollment keeps it for later joiners.
 */
export class GroupEnrollmentSubAccounts1765420000000 implements MigrationInterface {
  name = 'GroupEnrollmentSubAccounts1765420000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.group_enrollments ADD COLUMN sub_account_id integer');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.group_enrollments DROP COLUMN sub_account_id');
  }
}
