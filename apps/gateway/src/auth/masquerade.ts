import { Inject, Injectable } from '@nestjs/common';
import { AUTH_MASQUERADE_SUBJECT, isUserReference, type AuthMasqueradeRequest, type Principal, type RouteDefinition, type RpcRequest } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import type { Eventually } from '../http/eventually.js';
import { ProblemError, RpcReplyError } from '../http/problem.js';
import { searchOf } from '../http/query-normaliser.js';
import { ServiceClient } from '../http/service-client.js';
import { admits, audienceOf } from './audience.js';
import { parsePrincipal } from './authenticator.js';

/** The original service's masquerade parameter: an administrator acts as another user of the account. */
export const AS_USER_PARAM = 'as_user_id';

/** Author routes take `as_user_id`; elsewhere it is an unknown query parameter like any other. */
export const takesAsUser = (route: Pick<RouteDefinition, 'audience'>): boolean => route.audience === 'author';

/**
 * `as_user_id` (docs/compatibility.md): identity decides whom the caller may act as, by the rule that sets
 * `meta.can_masquerade`; the request then runs as that user, with the administrator kept as `actorId`.
 * Unknown or foreign users are a 404; anyone but an administrator, or a user one may not act as, a 403.
 */
@Injectable()
export class Masquerade {
  constructor(
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
    private readonly services: ServiceClient,
  ) {}

  /** The principal the request runs as: the caller at once unless it asks for `as_user_id`, else a promise of the user acted as. */
  principalFor(route: RouteDefinition, caller: Principal, request: FastifyRequest): Eventually<Principal> {
    if (!takesAsUser(route)) return caller;
    const search = searchOf(request.url);
    if (!search.includes(AS_USER_PARAM)) return caller;
    // `as_user_id[]=5` is the query's `as_user_id` too (normaliseQuery): a list, so never one user.
    const params = new URLSearchParams(search);
    const listed = params.getAll(`${AS_USER_PARAM}[]`);
    const values = [...params.getAll(AS_USER_PARAM), ...listed];
    if (values.length === 0) return caller;
    return this.actingAs(route, caller, request, values, listed.length > 0);
  }

  private async actingAs(route: RouteDefinition, caller: Principal, request: FastifyRequest, values: string[], listed: boolean): Promise<Principal> {
    if (!caller.roles.includes('admin')) {
      throw new ProblemError(403, 'MASQUERADE_FORBIDDEN', 'Only an administrator may act as another user (as_user_id).');
    }
    if (listed || values.length > 1 || !isUserReference(values[0])) {
      throw new ProblemError(400, 'VALIDATION_FAILED', 'The request has invalid or unknown fields.', [
        { field: AS_USER_PARAM, message: `${AS_USER_PARAM} must be one user id or "uid:<uid>"` },
      ]);
    }
    const acted = await this.lookUp(caller, values[0], request.id);
    if (!admits(route, acted.roles)) {
      throw new ProblemError(403, 'FORBIDDEN', `The user you act as (${AS_USER_PARAM}) is not in ${audienceOf(route)}.`);
    }
    this.deps.runtime.logger.info({ requestId: request.id, actorId: caller.userId, userId: acted.userId, accountId: acted.accountId }, 'acting as another user (as_user_id)');
    return { ...acted, actorId: caller.userId };
  }

  private async lookUp(caller: Principal, user: string, requestId: string): Promise<Principal> {
    const { accountId, subAccountId, userId, roles } = caller;
    const payload: RpcRequest<AuthMasqueradeRequest> = { ctx: { requestId, accountId, subAccountId, userId, roles }, params: {}, query: {}, body: { user } };
    const reply = await this.services.request(AUTH_MASQUERADE_SUBJECT, payload);
    if (!reply.ok) throw new RpcReplyError(reply.error);
    const acted = parsePrincipal(reply.body, AUTH_MASQUERADE_SUBJECT);
    // Identity answers for the caller's account only; anything else would be a fault, never a way across.
    if (acted.accountId !== accountId) throw new ProblemError(404, 'USER_NOT_FOUND', `User ${user} does not exist in this account.`);
    return acted;
  }
}
