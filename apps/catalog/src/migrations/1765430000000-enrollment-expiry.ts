import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The re-enrollment sweep reads the live completions that expire, across accounts (a system task, the one
 * index here not led by account_id), in expiry order.
 */
export class EnrollmentExpiry1765430000000 implements MigrationInterface {
  name = 'EnrollmentExpiry1765430000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX enrollments_expiring ON catalog.enrollments (expires_at, id)
                   WHERE deleted_at IS NULL AND state = 'complete' AND expires_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.enrollments_expiring');
  }
}
