import { AUTH_INVALIDATE_SUBJECT, type AuthInvalidation } from '@lms/contracts';
import type { MessageBus, TenantScope } from '@lms/platform';

/**
 * Tells every gateway replica to drop the cached principals of one user, so a change to who they are
 * (deleted, new roles) counts from the very next request. Send it after the change has committed:
 * sent earlier, a replica could re-read the old row and cache it again.
 */
export function dropCachedPrincipals(bus: MessageBus, scope: TenantScope, userId: number): void {
  const notice: AuthInvalidation = { userId, accountId: scope.accountId };
  bus.broadcast(AUTH_INVALIDATE_SUBJECT, notice);
}
