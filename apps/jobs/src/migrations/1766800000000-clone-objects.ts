import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Clone objects (docs/jobs.md "Sub-account clones"): the spec's Integer id for a clone job, its source and
 * applied options; state, messages and destination are its job's. A job may leave a result (`result`).
 */
export class CloneObjects1766800000000 implements MigrationInterface {
  name = 'CloneObjects1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs.jobs ADD COLUMN result jsonb`);
    await q.query(`
      CREATE TABLE jobs.clone_objects (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        job_id uuid NOT NULL UNIQUE REFERENCES jobs.jobs (id) ON DELETE CASCADE,
        source_id integer NOT NULL,
        source_type text NOT NULL,
        subdomain text NOT NULL,
        parameters jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX clone_objects_account ON jobs.clone_objects (account_id, id DESC)');
    await q.query('CREATE INDEX clone_objects_subdomain ON jobs.clone_objects (subdomain)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE jobs.clone_objects');
    await q.query('ALTER TABLE jobs.jobs DROP COLUMN result');
  }
}
