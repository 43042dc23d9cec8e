import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How far the registration change log has been pruned (docs/scheduling.md "Live updates"): every change of a
 * transaction below `through` may be gone, none at or above it is. One row, moved only forward.
 */
export class RegistrationChangesPruned1767900000000 implements MigrationInterface {
  name = 'RegistrationChangesPruned1767900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scheduling.registration_changes_pruned (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        through xid8 NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE scheduling.registration_changes_pruned');
  }
}
