import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users identity deleted, as catalog heard it: an enrollment inserted after the news leaves them out. */
export class DepartedUsers1767700000000 implements MigrationInterface {
  name = 'DepartedUsers1767700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.departed_users (
        account_id integer NOT NULL,
        user_id integer NOT NULL,
        departed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, user_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.departed_users');
  }
}
