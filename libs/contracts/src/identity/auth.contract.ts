import { IsString, Length } from 'class-validator';
import type { Role } from '../context.js';

/** The gateway resolves a bearer token to its principal with this request (body `{ token }`). */
export const AUTH_RESOLVE_SUBJECT = 'identity.auth.resolve';

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
  /** When the token stops working (RFC 3339), so no cache keeps it alive past its expiry; null when it never expires. */
  tokenExpiresAt?: string | null;
}

/** Hex SHA-256 of a token, the form in which tokens are stored and invalidated. */
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
