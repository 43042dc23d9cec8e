import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How far each live course's registration changes have been pruned (docs/scheduling.md "Live updates"): a
 * change of the course's of a transaction below `through` may be gone, none at or above it is. One row per
 * course that lost changes, moved only forward.
 */
export class RegistrationChangesPruned1767900000000 implements MigrationInterface {
  name = 'RegistrationChangesPruned1767900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scheduling.registration_changes_pruned (
        account_id integer NOT NULL,
        live_course_id integer NOT NULL,
        through xid8 NOT NULL,
        PRIMARY KEY (account_id, live_course_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE scheduling.registration_changes_pruned');
  }
}
