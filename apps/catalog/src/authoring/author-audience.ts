import type { RequestContext } from '@lms/contracts';
import { forbidden } from '@lms/platform';

/**
 * Writes that belong to no lockable item (programs, adding a market item) are the author audience's:
 * authors and administrators of the account. The gateway checks the audience too; a service never
 * trusts that it was asked through it.
 */
export function assertAuthorAudience(ctx: RequestContext, what: string): void {
  if (!ctx.roles.includes('admin') && !ctx.roles.includes('author')) throw forbidden('NOT_AN_AUTHOR', `Only authors and administrators of the account may ${what}.`);
}
