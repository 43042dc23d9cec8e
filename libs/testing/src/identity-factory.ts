import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestUser {
  accountId: number;
  userId: number;
  uid: string;
  token: string;
}

/**
 * Row factory for people the API cannot create yet or that a test needs quickly: an account, a user with
 * roles, and a bearer token, written straight into the identity schema of a running system's database.
 */
export class IdentityFactory {
  constructor(private readonly databaseUrl: string) {}

  private async withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  async account(subdomain = `acct-${randomBytes(4).toString('hex')}`): Promise<number> {
    return this.withClient(async (client) => {
      const { rows } = await client.query('INSERT INTO identity.accounts (subdomain, name) VALUES ($1, $1) RETURNING id', [subdomain]);
      return rows[0].id as number;
    });
  }

  async user(accountId: number, roles: string[], uid = `user-${randomBytes(4).toString('hex')}`): Promise<TestUser> {
    const token = `test_${randomBytes(24).toString('base64url')}`;
    return this.withClient(async (client) => {
      const { rows } = await client.query(
        'INSERT INTO identity.users (account_id, uid, first_name, last_name, email, roles) VALUES ($1, $2, $2, $3, $4, $5) RETURNING id',
        [accountId, uid, 'Test', `${uid}@example.test`, roles],
      );
      const userId = rows[0].id as number;
      await client.query('INSERT INTO identity.api_tokens (account_id, user_id, name, token_hash) VALUES ($1, $2, $3, $4)', [
        accountId,
        userId,
        'test',
        createHash('sha256').update(token).digest('hex'),
      ]);
      return { accountId, userId, uid, token };
    });
  }

  async accountIdOf(subdomain: string): Promise<number> {
    return this.withClient(async (client) => (await client.query('SELECT id FROM identity.accounts WHERE subdomain = $1', [subdomain])).rows[0].id as number);
  }

  async count(table: string): Promise<number> {
    return this.withClient(async (client) => Number((await client.query(`SELECT count(*) FROM ${table}`)).rows[0].count));
  }

  /** Sets a user's name and e-mail columns directly (null clears one), e.g. to test search and sorting. */
  async setUserNames(userId: number, names: { firstName?: string | null; lastName?: string | null; email?: string | null }): Promise<void> {
    await this.withClient((client) =>
      client.query(
        `UPDATE identity.users SET
           first_name = CASE WHEN $2 THEN $3 ELSE first_name END,
           last_name = CASE WHEN $4 THEN $5 ELSE last_name END,
           email = CASE WHEN $6 THEN $7 ELSE email END
         WHERE id = $1`,
        [userId, names.firstName !== undefined, names.firstName ?? null, names.lastName !== undefined, names.lastName ?? null, names.email !== undefined, names.email ?? null],
      ),
    );
  }

  /** Marks a user deleted (deleted_at = now()) the way a soft delete leaves the row. */
  async softDeleteUserRow(userId: number): Promise<void> {
    await this.withClient((client) => client.query('UPDATE identity.users SET deleted_at = now() WHERE id = $1', [userId]));
  }

  /** Leaves a user as an asynchronous deletion does before its worker runs (deletion requested, not yet deleted). */
  async markDeletionRequested(userId: number): Promise<void> {
    await this.withClient((client) => client.query('UPDATE identity.users SET deletion_requested_at = now() WHERE id = $1', [userId]));
  }
}
