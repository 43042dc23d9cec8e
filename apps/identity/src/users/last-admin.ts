import { conflict, type Database, type TenantScope } from '@lms/platform';

const lastAdmin = () => conflict('LAST_ADMIN', 'The account must keep an administrator: this change would leave it without one.');

/**
 * Refuses to take the admin role from `leaving` (by a role change or a deletion) when no other active
 * administrator would remain. Serialised per account in the caller's transaction: two administrators
 * demoting or deleting each other at once would otherwise each see the other still in office.
 */
export async function keepAnAdmin(db: Database, scope: TenantScope, leaving: number): Promise<void> {
  await db.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`identity.admins:${scope.accountId}`]);
  const [others] = (await db.manager.query(
    `SELECT count(*)::int AS n FROM "${db.schema}".users
      WHERE account_id = $1 AND id <> $2 AND 'admin' = ANY (roles)
        AND deleted_at IS NULL AND deletion_requested_at IS NULL AND hidden_at IS NULL`,
    [scope.accountId, leaving],
  )) as { n: number }[];
  if (others.n === 0) throw lastAdmin();
}
