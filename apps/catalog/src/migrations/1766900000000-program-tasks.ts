import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Programs take checkpoints (issue 22, `blocks_progress`): `program_tasks` places tasks in a program's order
 * beside `program_courses`. Both tables share one position sequence per program (1..n over courses and tasks
 * together), so the existing course rows, dense 1..n, are already a valid order and stay as they are. The
 * service rewrites a program's whole order under the program's row lock, which keeps the two tables from
 * ever giving one position twice. Every index starts with account_id.
 */
export class ProgramTasks1766900000000 implements MigrationInterface {
  name = 'ProgramTasks1766900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.program_tasks (
        account_id integer NOT NULL,
        program_id integer NOT NULL REFERENCES catalog.programs(id) ON DELETE CASCADE,
        task_id integer NOT NULL REFERENCES catalog.tasks(id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 1),
        PRIMARY KEY (account_id, program_id, task_id),
        CONSTRAINT program_tasks_order UNIQUE (program_id, position)
      )`);
    await q.query('CREATE INDEX program_tasks_program ON catalog.program_tasks (account_id, program_id, position)');
    // A deleted task leaves its programs; the blocking check asks which programs hold a learner's item.
    await q.query('CREATE INDEX program_tasks_task ON catalog.program_tasks (account_id, task_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.program_tasks');
  }
}
