import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per item ever locked, kept after release: its `fencing_token` grows by one with every new
 * holder, so it must outlive the lease. The primary key is what makes a lock exclusive (exactly one
 * holder under concurrent takes); `id` is the lease's id, new with each holder.
 */
export class Locks1764400000000 implements MigrationInterface {
  name = 'Locks1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE locking.locks (
        account_id integer NOT NULL,
        lockable_type text NOT NULL CHECK (lockable_type IN ('CourseTemplate', 'Task')),
        lockable_id bigint NOT NULL,
        id uuid NOT NULL,
        holder_id bigint NOT NULL,
        fencing_token bigint NOT NULL,
        acquired_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        released_at timestamptz,
        expiry_reported boolean NOT NULL DEFAULT false,
        PRIMARY KEY (account_id, lockable_type, lockable_id)
      )`);
    await q.query('CREATE UNIQUE INDEX locks_id ON locking.locks (id)');
    // Deleting a user releases their locks: found by holder among the unreleased ones.
    await q.query('CREATE INDEX locks_holder ON locking.locks (account_id, holder_id) WHERE released_at IS NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE locking.locks');
  }
}
