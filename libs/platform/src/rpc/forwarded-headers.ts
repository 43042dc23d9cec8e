import type { RequestContext, RpcRequest } from '@lms/contracts';

/** Keyed by the request's own context object, so an entry lives exactly as long as the request does. */
const byContext = new WeakMap<RequestContext, Readonly<Record<string, string>>>();

/** Called by BusTransport once a request's seal holds: its forwarded headers (RouteSpec.headers), if any. */
export function rememberForwardedHeaders(request: RpcRequest): void {
  if (request.headers && typeof request.ctx === 'object' && request.ctx !== null) byContext.set(request.ctx, request.headers);
}

/**
 * The headers the gateway forwarded with the request whose `ctx` this is, for code deep in a use case
 * (catalog's authoring guard reads `x-lock-id`) without every handler and service passing them along.
 * Empty when the route declares none; code must pass the request's `ctx` object on, not a copy.
 */
export function forwardedHeaders(ctx: RequestContext): Readonly<Record<string, string>> {
  return byContext.get(ctx) ?? {};
}
