import type { MigrationInterface, QueryRunner } from 'typeorm';
import { eventTablesDown, eventTablesUp } from '@lms/platform';

export class InitialIdentity1763800000000 implements MigrationInterface {
  name = 'InitialIdentity1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity.accounts (
        id serial PRIMARY KEY,
        subdomain text NOT NULL UNIQUE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE identity.users (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        uid text NOT NULL,
        first_name text,
        last_name text,
        email text,
        roles text[] NOT NULL DEFAULT '{learner}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query('CREATE UNIQUE INDEX users_account_uid ON identity.users (account_id, uid)');
    await q.query(`
      CREATE TABLE identity.api_tokens (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        user_id integer NOT NULL REFERENCES identity.users(id),
        name text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX api_tokens_account_user ON identity.api_tokens (account_id, user_id)');
    await q.query(`
      CREATE TABLE identity.custom_fields (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Names are unique per account regardless of case; the index settles concurrent creates.
    await q.query('CREATE UNIQUE INDEX custom_fields_account_name ON identity.custom_fields (account_id, lower(name))');
    await eventTablesUp(q, 'identity');
  }

  async down(q: QueryRunner): Promise<void> {
    await eventTablesDown(q, 'identity');
    await q.query('DROP TABLE identity.custom_fields');
    await q.query('DROP TABLE identity.api_tokens');
    await q.query('DROP TABLE identity.users');
    await q.query('DROP TABLE identity.accounts');
  }
}
