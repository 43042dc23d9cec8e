import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Checkpoints as learners do them (issue 22): evidence a learner gives for a checkpoint enrollment, and
 * approvals, one per submission, decided once. The enrollments themselves are the course enrollments'
 * table, with enrollable_type 'Task'.
 */
export class Checkpoints1766600000000 implements MigrationInterface {
  name = 'Checkpoints1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.checkpoint_evidence (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        enrollment_id integer NOT NULL,
        user_id integer NOT NULL,
        text text NULL,
        file_key text NULL,
        file_name text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX checkpoint_evidence_enrollment ON catalog.checkpoint_evidence (account_id, enrollment_id)');
    await q.query(`
      CREATE TABLE catalog.checkpoint_approvals (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        enrollment_id integer NOT NULL,
        task_id integer NOT NULL,
        user_id integer NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected')),
        approver_id integer NULL,
        comment text NULL,
        decided_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One open submission per enrollment: a second complete while one waits changes nothing.
    await q.query("CREATE UNIQUE INDEX checkpoint_approvals_pending ON catalog.checkpoint_approvals (account_id, enrollment_id) WHERE state = 'pending'");
    await q.query('CREATE INDEX checkpoint_approvals_state ON catalog.checkpoint_approvals (account_id, state, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.checkpoint_approvals');
    await q.query('DROP TABLE catalog.checkpoint_evidence');
  }
}
