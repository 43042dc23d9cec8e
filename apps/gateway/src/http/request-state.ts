import type { Principal } from '@lms/contracts';
import type { FastifyInstance } from 'fastify';
import type { RequestCredentials } from '../auth/bearer-token.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Authorization header, read and its token hashed once per request (credentialsOf). */
    credentials: RequestCredentials | null;
    /** Whom the request runs as, once authenticated and admitted (RouteRegistrar). */
    principal: Principal | null;
  }
}

/**
 * What the gateway's hooks learn about a request, as fields declared once on Fastify's request rather than
 * entries of WeakMaps keyed by it: an entry per short-lived request costs the garbage collector about a
 * microsecond, a field some nanoseconds.
 */
export function declareRequestState(fastify: FastifyInstance): void {
  fastify.decorateRequest('credentials', null);
  fastify.decorateRequest('principal', null);
}
