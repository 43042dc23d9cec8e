import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention sweep finds each account's complete data dumps to remove those a newer one replaced (docs/jobs.md "Retention"). */
export class ReplacedDumps1767400000000 implements MigrationInterface {
  name = 'ReplacedDumps1767400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX jobs_dumps_done ON jobs.jobs (account_id, created_at) WHERE kind = 'data_dump' AND status = 'done'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX jobs.jobs_dumps_done');
  }
}
