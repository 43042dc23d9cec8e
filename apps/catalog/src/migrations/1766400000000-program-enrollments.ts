import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A learner's enrollment in a program as a whole (the course enrollments it brings carry program_id):
 * one live row per learner and program; complete when every published course of the program is.
 */
export class ProgramEnrollments1766400000000 implements MigrationInterface {
  name = 'ProgramEnrollments1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.program_enrollments (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        program_id integer NOT NULL REFERENCES catalog.programs(id) ON DELETE CASCADE,
        user_id integer NOT NULL,
        sub_account_id integer,
        required boolean NOT NULL DEFAULT true,
        due_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query('CREATE UNIQUE INDEX program_enrollments_live ON catalog.program_enrollments (account_id, program_id, user_id) WHERE deleted_at IS NULL');
    await q.query('CREATE INDEX program_enrollments_learner ON catalog.program_enrollments (account_id, user_id) WHERE deleted_at IS NULL');
    await q.query('CREATE INDEX program_enrollments_page ON catalog.program_enrollments (account_id, program_id, created_at DESC, id DESC) WHERE deleted_at IS NULL');
    // Program completion asks for a learner's completed enrollments in a program's courses.
    await q.query(`CREATE INDEX enrollments_learner_completed ON catalog.enrollments (account_id, user_id, enrollable_type, enrollable_id) WHERE state = 'complete' AND deleted_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.enrollments_learner_completed');
    await q.query('DROP TABLE catalog.program_enrollments');
  }
}
