import type { RouteDefinition } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';

/** Longest header value forwarded; a longer one is cut, so a client cannot make the bus carry megabytes. */
const MAX_VALUE_LENGTH = 1024;

/**
 * The request headers a route declares (RouteSpec.headers), by lower-case name, for the service to
 * read; undefined when the route declares none, so other requests travel (and are sealed) as before.
 * A header sent twice counts by its first value; one not sent is absent.
 */
export function declaredHeaders(route: RouteDefinition, request: FastifyRequest): Record<string, string> | undefined {
  if (!route.headers?.length) return undefined;
  const forwarded: Record<string, string> = {};
  for (const { name } of route.headers) {
    const key = name.toLowerCase();
    const raw = request.headers[key];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === 'string') forwarded[key] = value.slice(0, MAX_VALUE_LENGTH);
  }
  return forwarded;
}
