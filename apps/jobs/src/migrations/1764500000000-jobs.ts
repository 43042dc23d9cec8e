import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Jobs and their state (docs/jobs.md): `jobs` records a job `pending` with its outbox event; `jobs-worker`
 * moves it to `running`, then `done` (with its file) or `failed` (with its error messages).
 */
export class Jobs1764500000000 implements MigrationInterface {
  name = 'Jobs1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs.jobs (
        id uuid PRIMARY KEY,
        account_id integer NOT NULL,
        kind text NOT NULL,
        params jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
        error_messages text[] NOT NULL DEFAULT '{}',
        created_by integer NULL,
        file_key text NULL,
        file_name text NULL,
        file_size bigint NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NULL,
        finished_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX jobs_account_kind_idx ON jobs.jobs (account_id, kind, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE jobs.jobs`);
  }
}
