import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Programs: ordered sets of course templates. `program_courses` (which `program_ids` already reads) gains
 * the course's place in its program and a key to the program. Every index starts with account_id.
 */
export class Programs1765330000000 implements MigrationInterface {
  name = 'Programs1765330000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.programs (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        author_id integer NOT NULL,
        title text NOT NULL,
        description text,
        is_published boolean NOT NULL DEFAULT false,
        open_enrollment boolean NOT NULL DEFAULT false,
        uuid uuid NOT NULL DEFAULT gen_random_uuid(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query('CREATE UNIQUE INDEX programs_uuid ON catalog.programs (uuid)');
    await q.query('CREATE INDEX programs_newest ON catalog.programs (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL');
    await q.query('CREATE INDEX programs_title_trgm ON catalog.programs USING gin (title public.gin_trgm_ops) WHERE deleted_at IS NULL');

    // Nothing wrote program_courses before this feature; a row naming no program could never be shown.
    await q.query('DELETE FROM catalog.program_courses');
    await q.query('ALTER TABLE catalog.program_courses ADD COLUMN position integer NOT NULL');
    await q.query('ALTER TABLE catalog.program_courses ADD CONSTRAINT program_courses_program FOREIGN KEY (program_id) REFERENCES catalog.programs(id) ON DELETE CASCADE');
    // 1..n per program (a program's list is rewritten whole, under the program's row lock).
    await q.query('ALTER TABLE catalog.program_courses ADD CONSTRAINT program_courses_order UNIQUE (program_id, position)');
    await q.query('CREATE INDEX program_courses_program ON catalog.program_courses (account_id, program_id, position)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.program_courses_program');
    await q.query('ALTER TABLE catalog.program_courses DROP CONSTRAINT program_courses_order');
    await q.query('ALTER TABLE catalog.program_courses DROP CONSTRAINT program_courses_program');
    await q.query('ALTER TABLE catalog.program_courses DROP COLUMN position');
    await q.query('DROP TABLE catalog.programs');
  }
}
