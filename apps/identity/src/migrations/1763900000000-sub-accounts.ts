import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SubAccounts1763900000000 implements MigrationInterface {
  name = 'SubAccounts1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity.sub_accounts (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        name text NOT NULL,
        is_root boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX sub_accounts_account ON identity.sub_accounts (account_id, id)');
    // Exactly one root per account: the index refuses a second, creation always makes the first.
    await q.query('CREATE UNIQUE INDEX sub_accounts_one_root ON identity.sub_accounts (account_id) WHERE is_root');
    // Accounts created before this migration get their root too.
    await q.query(`
      INSERT INTO identity.sub_accounts (account_id, name, is_root, created_at)
      SELECT a.id, a.name, true, a.created_at
        FROM identity.accounts a
       WHERE NOT EXISTS (SELECT 1 FROM identity.sub_accounts s WHERE s.account_id = a.id AND s.is_root)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE identity.sub_accounts');
  }
}
