import type { Database, TenantScope } from '@lms/platform';

/** The advisory lock class of one learner's group memberships (`pg_advisory_xact_lock(class, key)`). */
const MEMBERSHIP_LOCK = 1_767_701;

/**
 * In the caller's transaction: catalog handles one learner's group joins and leaves one at a time, on any
 * replica. Each asks identity which groups hold the learner now; a join or leave of theirs handled while
 * it acts on that answer would find the enrollments as they were before, and the answer stale.
 */
export async function lockMembership(db: Database, scope: TenantScope, userId: number): Promise<void> {
  // Outside a transaction the lock would be released as soon as it was taken.
  if (!db.inTransaction) throw new Error('lockMembership must run inside db.transaction()');
  await db.manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MEMBERSHIP_LOCK, `${scope.accountId}:${userId}`]);
}
