import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retention sweep (docs/jobs.md "Retention") finds finished import runs, and deliveries left unsettled,
 * by age: both partial indexes hold only the rows a sweep may take.
 */
export class UnsettledWork1767900000000 implements MigrationInterface {
  name = 'UnsettledWork1767900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX jobs_imports_finished ON jobs.jobs (finished_at) WHERE kind = 'import' AND status IN ('done', 'failed')`);
    await q.query(`CREATE INDEX notification_deliveries_unsettled ON jobs.notification_deliveries (updated_at) WHERE status IN ('pending', 'sending')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX jobs.notification_deliveries_unsettled');
    await q.query('DROP INDEX jobs.jobs_imports_finished');
  }
}
