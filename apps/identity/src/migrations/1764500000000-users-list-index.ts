import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The default users list of an account (neither hidden nor deleted) in id order, and its total, from one
 * small index: a page, first or after a bookmark, is a range of it, and the COUNT(*) every page answers
 * with is an index-only scan instead of a scan of the whole table (every account's users). The
 * with_deleted and only_deleted variants are rare and keep the plans they had.
 */
export class UsersListIndex1764500000000 implements MigrationInterface {
  name = 'UsersListIndex1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX users_account_listed ON identity.users (account_id, id) WHERE hidden_at IS NULL AND deleted_at IS NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX identity.users_account_listed');
  }
}
