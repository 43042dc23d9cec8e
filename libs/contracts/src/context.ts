/** Who is calling and on whose behalf: travels in the payload of every NATS request. */
export interface RequestContext {
  requestId: string;
  accountId: number;
  subAccountId: number | null;
  userId: number;
  roles: Role[];
  /**
   * Set when an administrator acts as `userId` (query `as_user_id` on author routes): the administrator
   * really calling. Everything else in the context is the user acted as.
   */
  actorId?: number;
  /** The client's `Idempotency-Key` of a POST (docs/idempotency.md); the service claims it with its write. */
  idempotencyKey?: string;
}

export const ROLES = ['admin', 'author', 'learner', 'support'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The context of work no request carries (an event's consumer, a job): the account's, acting as an
 * administrator of it, on behalf of `userId` when someone asked for the work (0: nobody).
 */
export function systemContext(accountId: number, requestId: string, userId = 0): RequestContext {
  return { requestId, accountId, subAccountId: null, userId, roles: ['admin'] };
}

/** The envelope every RPC request carries; `params`, `query` and `body` are already validated by the gateway. */
export interface RpcRequest<B = unknown, Q = Record<string, unknown>, P = Record<string, string>> {
  ctx: RequestContext;
  params: P;
  query: Q;
  body: B;
  /** Request headers the route declares (RouteSpec.headers), by lower-case name; absent ones are left out. */
  headers?: Record<string, string>;
  /** The gateway's signature over subject, ctx, params, query and body; services refuse a request without a valid one. */
  seal?: RequestSeal;
}

/** HMAC-SHA256 (`mac`, base64url) by the gateway at `at` (ms since the epoch); see libs/platform `ContextSeal`. */
export interface RequestSeal {
  v: 1;
  at: number;
  mac: string;
}

/** A problem as the services report it; the gateway turns it into RFC 9457 problem+json. */
export interface RpcError {
  status: number;
  code: string;
  title: string;
  detail?: string;
  errors?: FieldError[];
}

export interface FieldError {
  field: string;
  message: string;
}

/**
 * What a service answers: a body with an optional status, paging total and headers; or an error. A list
 * larger than its service counts answers `more` (whether a page follows) instead of `total`.
 */
export type RpcReply =
  | {
      ok: true;
      status?: number;
      body?: unknown;
      total?: number;
      more?: boolean;
      next?: string;
      headers?: Record<string, string>;
      /** The body holds a secret shown once (an API token): no Idempotency-Key record keeps it, no cache stores it. */
      secret?: boolean;
    }
  | { ok: false; error: RpcError };
