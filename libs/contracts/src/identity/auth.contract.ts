import { hash } from 'node:crypto';
import { IsDefined, IsString, Length } from 'class-validator';
import type { Role } from '../context.js';
import { IsUserReference } from './users.contract.js';

/** The gateway resolves a bearer token to its principal with this request (body `{ token }`). */
export const AUTH_RESOLVE_SUBJECT = 'identity.auth.resolve';

/**
 * An administrator acts as another user of the account (`as_user_id`, the original service's masquerade):
 * the request's ctx is the administrator's, the body `{ user }` names the other user (id or `uid:<uid>`),
 * and the answer is that user's principal. 404 for nobody of the account, 403 for a user one may not act as.
 */
export const AUTH_MASQUERADE_SUBJECT = 'identity.auth.masquerade';

/** Broadcast when cached principals must be dropped on every gateway replica (revocation, user deletion). */
export const AUTH_INVALIDATE_SUBJECT = 'identity.auth.invalidate';

export interface AuthResolveBody {
  token: string;
}

export interface Principal {
  accountId: number;
  subAccountId: number | null;
  userId: number;
  roles: Role[];
  /** The administrator really calling when this principal is another user acted as (`as_user_id`). */
  actorId?: number;
  /** When the token stops working (RFC 3339), so no cache keeps it alive past its expiry; null when it never expires. */
  tokenExpiresAt?: string | null;
}

/** Drops cached principals: by token hash (see tokenHash), by user of an account, by account, or all. */
export interface AuthInvalidation {
  tokenHashes?: string[];
  userId?: number;
  accountId?: number;
  all?: boolean;
}

export class AuthResolveRequest {
  @IsString() @Length(1, 512)
  token: string;
}

/** Hex SHA-256: identity stores tokens, and gateways cache and invalidate them, under this name only. */
export const tokenHash = (token: string): string => hash('sha256', token, 'hex');

export class AuthMasqueradeRequest {
  @IsDefined() @IsUserReference()
  user: string | number;
}
