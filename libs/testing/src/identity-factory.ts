import { randomBytes } from 'node:crypto';
import { tokenHash } from '@lms/contracts';
import { queryDatabase } from './infra.js';

export interface TestUser {
  accountId: number;
  userId: number;
  uid: string;
  token: string;
}

/** The people most specs need: the bootstrap account, an author and a learner in it, an admin of another account. */
export interface TestCast {
  accountId: number;
  author: TestUser;
  learner: TestUser;
  stranger: TestUser;
}

/**
 * Row factory for people the API cannot create yet or that a test needs quickly: an account, a user with
 * roles, and a bearer token, written straight into the identity schema of a running system's database.
 */
export class IdentityFactory {
  constructor(readonly databaseUrl: string) {}

  private query<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return queryDatabase<T>(this.databaseUrl, text, values);
  }

  /**
   * `count` learners of the account at once (no tokens), their ids in creation order: the thousands a test of a
   * large write needs, which the API would take most of a suite's time to make. `groupId`: members of it too.
   */
  async learners(accountId: number, count: number, groupId?: number): Promise<number[]> {
    const prefix = `crowd-${randomBytes(4).toString('hex')}`;
    const rows = await this.query<{ id: number }>(
      `WITH u AS (INSERT INTO identity.users (account_id, uid, first_name, last_name, email)
                  SELECT $1, $2 || '-' || n, 'Crowd', 'Learner ' || n, $2 || '-' || n || '@example.test' FROM generate_series(1, $3::int) n RETURNING id),
            m AS (INSERT INTO identity.group_memberships (account_id, group_id, user_id) SELECT $1, $4, id FROM u WHERE $4::int IS NOT NULL)
       SELECT id FROM u ORDER BY id`,
      [accountId, prefix, count, groupId ?? null],
    );
    return rows.map((r) => r.id);
  }

  async account(subdomain = `acct-${randomBytes(4).toString('hex')}`): Promise<number> {
    // With its root sub-account, as every account created through identity has one.
    const [row] = await this.query<{ id: number }>(
      `WITH a AS (INSERT INTO identity.accounts (subdomain, name) VALUES ($1, $1) RETURNING id)
       INSERT INTO identity.sub_accounts (account_id, name, is_root) SELECT a.id, $1, true FROM a RETURNING account_id AS id`,
      [subdomain],
    );
    return row.id;
  }

  async user(accountId: number, roles: string[], uid = `user-${randomBytes(4).toString('hex')}`): Promise<TestUser> {
    const token = `test_${randomBytes(24).toString('base64url')}`;
    // One statement, so the user never exists without its token.
    const [row] = await this.query<{ id: number }>(
      `WITH u AS (
         INSERT INTO identity.users (account_id, uid, first_name, last_name, email, roles) VALUES ($1, $2, $2, $3, $4, $5) RETURNING id
       )
       INSERT INTO identity.api_tokens (account_id, user_id, name, token_hash) SELECT $1, u.id, 'test', $6 FROM u RETURNING user_id AS id`,
      [accountId, uid, 'Test', `${uid}@example.test`, roles, tokenHash(token)],
    );
    return { accountId, userId: row.id, uid, token };
  }

  /** The bootstrap account's author and learner, and an administrator of a second account. */
  async cast(): Promise<TestCast> {
    const accountId = await this.accountIdOf('default');
    return {
      accountId,
      author: await this.user(accountId, ['author']),
      learner: await this.user(accountId, ['learner']),
      stranger: await this.user(await this.account(), ['admin']),
    };
  }

  async accountIdOf(subdomain: string): Promise<number> {
    const [row] = await this.query<{ id: number }>('SELECT id FROM identity.accounts WHERE subdomain = $1', [subdomain]);
    return row.id;
  }

  async count(table: string): Promise<number> {
    const [row] = await this.query<{ count: string }>(`SELECT count(*) FROM ${table}`);
    return Number(row.count);
  }

  /** Sets a user's name and e-mail columns directly (null clears one), e.g. to test search and sorting. */
  async setUserNames(userId: number, names: { firstName?: string | null; lastName?: string | null; email?: string | null }): Promise<void> {
    await this.query(
      `UPDATE identity.users SET
         first_name = CASE WHEN $2 THEN $3 ELSE first_name END,
         last_name = CASE WHEN $4 THEN $5 ELSE last_name END,
         email = CASE WHEN $6 THEN $7 ELSE email END
       WHERE id = $1`,
      [userId, names.firstName !== undefined, names.firstName ?? null, names.lastName !== undefined, names.lastName ?? null, names.email !== undefined, names.email ?? null],
    );
  }

  /** Marks a user deleted (deleted_at = now()) the way a soft delete leaves the row. */
  async softDeleteUserRow(userId: number): Promise<void> {
    await this.query('UPDATE identity.users SET deleted_at = now() WHERE id = $1', [userId]);
  }

  /** Leaves a user as an asynchronous deletion does before its worker runs (deletion requested, not yet deleted). */
  async markDeletionRequested(userId: number): Promise<void> {
    await this.query('UPDATE identity.users SET deletion_requested_at = now() WHERE id = $1', [userId]);
  }
}
