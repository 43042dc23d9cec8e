import type { QueryRunner } from 'typeorm';
import type { Database } from './database.js';
import type { TenantScope } from './tenant-repository.js';

/**
 * Users of an account share a lock by `user_id % BUCKETS`: a transaction enrolling a thousand users holds at
 * most this many locks (they live in Postgres' shared lock table, 64 per connection by default).
 */
const BUCKETS = 32;
/**
 * The lock key of an account's bucket (SQL; `$account` and `bucket` are spliced in): another account's long
 * enrollment never holds up this account's deletions. Keys of accounts 2^26 apart meet, which only waits.
 */
const bucketKey = (account: string, bucket: string) => `((${account}::bigint * ${BUCKETS} + ${bucket}) % 2147483648)::int`;

/**
 * Where an enrollment and its learner's deletion meet, in a service that keeps users' enrollments (its
 * schema's `departed_users`). The service hears of a deletion after identity commits it, and enrolls users
 * identity vouched for a moment before: without a meeting point, an enrollment committing after the
 * withdrawal of the user's enrollments would outlive them. The deletion's consumers `record` it under the
 * user's lock, held exclusively, then withdraw what is committed; every insert of enrollments first asks
 * `among` under the same locks, shared, and leaves departed users out. So an insert that commits first is
 * withdrawn, and one that commits after sees the record.
 */
export class DepartedUsers {
  private readonly table: string;

  /** `lockClass`: the advisory lock class of the service's departures (`pg_advisory_xact_lock(class, key)`), one per service, never changed. */
  constructor(
    private readonly db: Database,
    private readonly lockClass: number,
  ) {
    this.table = `"${db.schema.replace(/"/g, '""')}".departed_users`;
  }

  /** In the caller's transaction: which of these users identity deleted; none of the others departs before it commits. */
  async among(scope: TenantScope, userIds: number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    // Bucket order, one statement: two inserts never wait on each other's buckets in a circle.
    await this.db.manager.query(
      `SELECT pg_advisory_xact_lock_shared($1, ${bucketKey('$3', 'b')}) FROM (SELECT DISTINCT u % ${BUCKETS} AS b FROM unnest($2::int[]) AS u) AS buckets ORDER BY b`,
      [this.lockClass, userIds, scope.accountId],
    );
    const rows: { user_id: number }[] = await this.db.manager.query(`SELECT user_id FROM ${this.table} WHERE account_id = $1 AND user_id = ANY($2::int[])`, [scope.accountId, userIds]);
    return new Set(rows.map((r) => Number(r.user_id)));
  }

  /** Whether identity deleted this user (as this service has heard so far); takes no lock. */
  async has(scope: TenantScope, userId: number): Promise<boolean> {
    const rows: unknown[] = await this.db.manager.query(`SELECT 1 FROM ${this.table} WHERE account_id = $1 AND user_id = $2`, [scope.accountId, userId]);
    return rows.length > 0;
  }

  /** `identity.user.deleted`, first in the consumer's transaction: waits for inserts of the user's enrollments to commit. */
  async record(scope: TenantScope, userId: number): Promise<void> {
    await this.db.manager.query(`SELECT pg_advisory_xact_lock($1, ${bucketKey('$2', '$3')})`, [this.lockClass, scope.accountId, userId % BUCKETS]);
    await this.db.manager.query(`INSERT INTO ${this.table} (account_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [scope.accountId, userId]);
  }
}

/** The table `DepartedUsers` keeps, in a service's first migration that needs it. */
export async function departedUsersUp(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`
    CREATE TABLE "${schema}".departed_users (
      account_id integer NOT NULL,
      user_id integer NOT NULL,
      departed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, user_id)
    )`);
}

export async function departedUsersDown(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`DROP TABLE "${schema}".departed_users`);
}
