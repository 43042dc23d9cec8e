import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Attributes a sub-account locks on its courses (catalog derives a course's `derived_locked_attributes` from them). */
export class SubAccountLocks1764400000000 implements MigrationInterface {
  name = 'SubAccountLocks1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity.sub_accounts ADD COLUMN locked_attributes text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE identity.sub_accounts DROP COLUMN locked_attributes');
  }
}
