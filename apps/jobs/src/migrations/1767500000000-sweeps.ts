import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When each sweep shared by the jobs-worker replicas last ran (docs/jobs.md "Retention": the file sweep). */
export class Sweeps1767500000000 implements MigrationInterface {
  name = 'Sweeps1767500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE jobs.sweeps (name text PRIMARY KEY, last_run_at timestamptz NOT NULL)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE jobs.sweeps');
  }
}
