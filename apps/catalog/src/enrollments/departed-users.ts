import { Injectable } from '@nestjs/common';
import { Database, type TenantScope } from '@lms/platform';

/** The advisory lock class of a learner's departure (`pg_advisory_xact_lock(class, key)`). */
const DEPARTURE_LOCK = 1_767_700;
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
 * Where an enrollment and its learner's deletion meet. Catalog hears of a deletion after identity commits
 * it, and enrolls users identity vouched for a moment before: without a meeting point, an enrollment
 * committing after the withdrawal of the user's enrollments would outlive them. The deletion's consumers
 * `record` it under the user's lock, held exclusively, then withdraw what is committed; every insert of
 * enrollments first asks `among` under the same locks, shared, and leaves departed users out. So an
 * insert that commits first is withdrawn, and one that commits after sees the record.
 */
@Injectable()
export class DepartedUsers {
  constructor(private readonly db: Database) {}

  /** In the caller's transaction: which of these users identity deleted; none of the others departs before it commits. */
  async among(scope: TenantScope, userIds: number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    // Bucket order, one statement: two inserts never wait on each other's buckets in a circle.
    await this.db.manager.query(
      `SELECT pg_advisory_xact_lock_shared($1, ${bucketKey('$3', 'b')}) FROM (SELECT DISTINCT u % ${BUCKETS} AS b FROM unnest($2::int[]) AS u) AS buckets ORDER BY b`,
      [DEPARTURE_LOCK, userIds, scope.accountId],
    );
    const rows: { user_id: number }[] = await this.db.manager.query('SELECT user_id FROM catalog.departed_users WHERE account_id = $1 AND user_id = ANY($2::int[])', [scope.accountId, userIds]);
    return new Set(rows.map((r) => Number(r.user_id)));
  }

  /** Whether identity deleted this user (as catalog has heard so far); takes no lock. */
  async has(scope: TenantScope, userId: number): Promise<boolean> {
    const rows: unknown[] = await this.db.manager.query('SELECT 1 FROM catalog.departed_users WHERE account_id = $1 AND user_id = $2', [scope.accountId, userId]);
    return rows.length > 0;
  }

  /** `identity.user.deleted`, first in the consumer's transaction: waits for inserts of the user's enrollments to commit. */
  async record(scope: TenantScope, userId: number): Promise<void> {
    await this.db.manager.query(`SELECT pg_advisory_xact_lock($1, ${bucketKey('$2', '$3')})`, [DEPARTURE_LOCK, scope.accountId, userId % BUCKETS]);
    await this.db.manager.query('INSERT INTO catalog.departed_users (account_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [scope.accountId, userId]);
  }
}
