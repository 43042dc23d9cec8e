import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention sweep (docs/jobs.md "Retention") finds finished downloads and settled deliveries by age. */
export class Retention1767300000000 implements MigrationInterface {
  name = 'Retention1767300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX jobs_downloads_finished ON jobs.jobs (finished_at) WHERE kind = 'download' AND status IN ('done', 'failed')`);
    await q.query(`CREATE INDEX notification_deliveries_settled ON jobs.notification_deliveries (updated_at) WHERE status IN ('sent', 'failed', 'skipped')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX jobs.notification_deliveries_settled');
    await q.query('DROP INDEX jobs.jobs_downloads_finished');
  }
}
