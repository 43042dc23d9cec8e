import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Checkpoint (task) completions count in the user summary too (issue 22): a fourth kind of completion. */
export class TaskCompletions1766600000000 implements MigrationInterface {
  name = 'TaskCompletions1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE identity.user_completions DROP CONSTRAINT IF EXISTS user_completions_kind_check');
    await q.query("ALTER TABLE identity.user_completions ADD CONSTRAINT user_completions_kind_check CHECK (kind IN ('course', 'program', 'live_course', 'task'))");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE identity.user_completions DROP CONSTRAINT user_completions_kind_check');
    await q.query("ALTER TABLE identity.user_completions ADD CONSTRAINT user_completions_kind_check CHECK (kind IN ('course', 'program', 'live_course'))");
  }
}
