import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  AUTH_INVALIDATE_SUBJECT,
  AUTH_RESOLVE_SUBJECT,
  ROLES,
  type AuthInvalidation,
  type AuthResolveBody,
  type Principal,
  type Role,
  type RpcRequest,
} from '@lms/contracts';
import type { Subscription } from '@lms/platform';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import type { Eventually } from '../http/eventually.js';
import { BEARER_REALM as REALM, INVALID_TOKEN_CHALLENGE, ProblemError, RpcReplyError } from '../http/problem.js';
import { MalformedReplyError } from '../http/rpc-reply.js';
import { ServiceClient } from '../http/service-client.js';
import { credentialsOf, type RequestCredentials } from './bearer-token.js';
import { PrincipalCache } from './principal-cache.js';

const unauthenticated = (detail: string, challenge: string) =>
  new ProblemError(401, 'UNAUTHENTICATED', detail, undefined, { 'www-authenticate': challenge });

const isInt = (value: unknown): value is number => Number.isInteger(value);

export function parsePrincipal(body: unknown, subject = AUTH_RESOLVE_SUBJECT): Principal {
  const p = body as Partial<Principal> | null;
  const valid =
    typeof p === 'object' && p !== null &&
    isInt(p.accountId) && isInt(p.userId) && (p.subAccountId === null || isInt(p.subAccountId)) &&
    Array.isArray(p.roles) && p.roles.every((role) => ROLES.includes(role as Role)) &&
    (p.tokenExpiresAt == null || (typeof p.tokenExpiresAt === 'string' && !Number.isNaN(Date.parse(p.tokenExpiresAt))));
  if (!valid) throw new MalformedReplyError(subject, 'not a principal');
  return {
    accountId: p.accountId as number,
    subAccountId: p.subAccountId as number | null,
    userId: p.userId as number,
    roles: p.roles as Role[],
    tokenExpiresAt: p.tokenExpiresAt ?? null,
  };
}

function parseInvalidation(payload: unknown): AuthInvalidation | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const n = payload as Record<string, unknown>;
  const ok =
    (n.tokenHashes === undefined || (Array.isArray(n.tokenHashes) && n.tokenHashes.every((h) => typeof h === 'string'))) &&
    (n.userId === undefined || isInt(n.userId)) &&
    (n.accountId === undefined || isInt(n.accountId)) &&
    (n.all === undefined || typeof n.all === 'boolean');
  return ok ? (n as AuthInvalidation) : undefined;
}

/**
 * Bearer (or Basic, see parseAuthorization) token -> principal, by asking identity and caching the answer briefly (design §7).
 * Revocations reach every replica as `identity.auth.invalidate` broadcasts; failures are never cached.
 */
@Injectable()
export class Authenticator implements OnModuleInit, OnModuleDestroy {
  readonly cache: PrincipalCache;
  /** One identity lookup per token at a time, however many requests carry it. */
  private readonly pending = new Map<string, Promise<Principal>>();
  private subscription?: Subscription;

  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps, private readonly services: ServiceClient) {
    this.cache = new PrincipalCache(deps.runtime.config.authCacheTtlMs);
  }

  onModuleInit(): void {
    this.subscription = this.deps.runtime.bus.listen(AUTH_INVALIDATE_SUBJECT, (payload) => this.invalidate(payload));
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
  }

  /** The caller's principal: at once from the cache, else a promise of identity's answer. Throws 401 for a missing or malformed header. */
  authenticate(request: { id: string; headers: { authorization?: string }; credentials: RequestCredentials | null }): Eventually<Principal> {
    const credentials = credentialsOf(request);
    if (credentials.kind === 'missing') throw unauthenticated('This endpoint needs an Authorization: Bearer <token> (or Basic <token>) header.', REALM);
    if (credentials.kind === 'malformed') throw unauthenticated('The Authorization header must be "Bearer <token>", "Basic <token>" or Basic credentials with the token as password.', `${REALM}, error="invalid_request"`);
    const { token, hash } = credentials;
    const cached = this.cache.get(hash);
    if (cached) return cached;
    let lookup = this.pending.get(hash);
    if (!lookup) {
      lookup = this.resolve(token, hash, request.id).finally(() => {
        if (this.pending.get(hash) === lookup) this.pending.delete(hash);
      });
      this.pending.set(hash, lookup);
    }
    return lookup;
  }

  private async resolve(token: string, hash: string, requestId: string): Promise<Principal> {
    const generation = this.cache.generation;
    // Nobody is signed in yet: the lookup runs as the system (account 0).
    const payload: RpcRequest<AuthResolveBody> = {
      ctx: { requestId, accountId: 0, subAccountId: null, userId: 0, roles: [] },
      params: {},
      query: {},
      body: { token },
    };
    const reply = await this.services.request(AUTH_RESOLVE_SUBJECT, payload);
    if (!reply.ok) {
      if (reply.error.status === 401) throw unauthenticated('The bearer token is unknown, expired or revoked.', INVALID_TOKEN_CHALLENGE);
      throw new RpcReplyError(reply.error);
    }
    const principal = parsePrincipal(reply.body);
    this.cache.set(hash, principal, generation);
    return principal;
  }

  private invalidate(payload: unknown): void {
    const notice = parseInvalidation(payload);
    if (!notice) {
      // A revocation we cannot read might be any revocation: forgetting everything is the safe reading.
      this.deps.runtime.logger.warn({ payload }, 'unreadable auth invalidation: dropping every cached principal');
    }
    this.pending.clear();
    const dropped = this.cache.invalidate(notice ?? { all: true });
    this.deps.runtime.logger.debug({ dropped }, 'auth cache invalidated');
  }
}
