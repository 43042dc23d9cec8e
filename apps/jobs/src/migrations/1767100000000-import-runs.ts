import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scheduled CSV imports (docs/jobs.md): a run is an `import` job plus its outcome; a scheduled run names its
 * slot, unique per account, so each slot is enqueued once whatever the replicas and restarts. The schedules
 * are jobs' copy of each account's profile days and time, kept from identity's events.
 */
export class ImportRuns1767100000000 implements MigrationInterface {
  name = 'ImportRuns1767100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs.import_runs (
        job_id uuid PRIMARY KEY REFERENCES jobs.jobs (id) ON DELETE CASCADE,
        account_id integer NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('manual', 'schedule')),
        dry_run boolean NOT NULL DEFAULT false,
        slot timestamptz NULL,
        rows integer NULL,
        counts jsonb NULL,
        errors jsonb NOT NULL DEFAULT '[]',
        changes jsonb NOT NULL DEFAULT '[]',
        error text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX import_runs_account_slot ON jobs.import_runs (account_id, slot) WHERE slot IS NOT NULL`);
    await q.query(`CREATE INDEX import_runs_account_created ON jobs.import_runs (account_id, created_at DESC, job_id DESC)`);
    await q.query(`
      CREATE TABLE jobs.import_schedules (
        account_id integer PRIMARY KEY,
        csv_days boolean[] NOT NULL,
        csv_time text NULL,
        has_url boolean NOT NULL,
        active_since timestamptz NOT NULL,
        event_time timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE jobs.import_schedules`);
    await q.query(`DROP TABLE jobs.import_runs`);
  }
}
