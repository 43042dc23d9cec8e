import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ROUTES, type RouteDefinition, UID_PREFIX, unsafeInput } from '@lms/contracts';
import { isEntrypoint, NestLogger, runStandalone, type Deployable, type HealthIndicator, type Runtime } from '@lms/platform';
import type { GatewayDeps } from './gateway-deps.js';
import { GatewayModule } from './gateway.module.js';
import { busIndicator } from './health/health.controller.js';
import { answerClientError } from './http/client-error.js';
import { acceptUploads } from './http/uploads.js';
import { acceptFormBodies } from './http/compat-input.js';
import { ProblemError } from './http/problem.js';
import { ProblemFilter } from './http/problem.filter.js';
import { replyWithProblem } from './http/problem-reply.js';
import { RequestDrain } from './http/request-drain.js';
import { generateRequestId } from './http/request-id.js';
import { assertIdentityCoding, utf8Text } from './http/utf8.js';
import { declareRequestState } from './http/request-state.js';
import { HttpMetrics } from './metrics/http-metrics.js';

/** Largest request body the gateway reads; bigger ones answer 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Longest path parameter the router matches (Fastify's default is 100, and a longer one is a 414): a
 * 255-character uid after `uid:`, every character a 4-byte UTF-8 sequence percent-encoded.
 */
export const MAX_PARAM_LENGTH = UID_PREFIX.length + 255 * 4 * 3;

export interface GatewayOptions {
  /** Extra readiness checks for `/readyz`, e.g. the other deployables of an all-in-one process. */
  indicators?: HealthIndicator[];
}

export interface Gateway extends Deployable {
  /** Base URL the gateway listens on, e.g. `http://127.0.0.1:41234` (port 0 resolved). */
  url: string;
  app: NestFastifyApplication;
}

/**
 * Fastify's parser refuses `__proto__` (and `constructor.prototype`) keys with the error of broken JSON,
 * "Body is not valid JSON": when the text is valid JSON, the answer names the key instead. Runs only on a
 * refused body.
 */
function prototypeKeys(text: string, error: Error): Error {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return error;
  }
  const errors = unsafeInput(parsed).filter((e) => /^the key "(__proto__|constructor)"/.test(e.message));
  return errors.length === 0 ? error : new ProblemError(400, 'MALFORMED_REQUEST', 'The JSON body has a key named like a prototype member (__proto__, constructor); no field is named so.', errors);
}

function baseUrl(address: AddressInfo | string | null, host: string): string {
  if (address === null || typeof address === 'string') throw new Error('the gateway is not listening on a TCP port');
  // A wildcard address is not one a client can call: the loopback of the same family is.
  const reachable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address || host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${address.port}`;
}

/**
 * Starts the HTTP edge (design §1): the route table's endpoints, auth, validation, problem+json errors,
 * ETags, paging links, OpenAPI, health and metrics. Signals and process exit belong to the launcher;
 * `close()` stops taking connections and lets the requests in flight finish.
 */
export async function start(runtime: Runtime, routes: RouteDefinition[] = ROUTES, options: GatewayOptions = {}): Promise<Gateway> {
  runtime = { ...runtime, logger: runtime.logger.child({ service: 'gateway' }) };
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: generateRequestId,
    requestIdHeader: false,
    logger: false,
    // `/api/author/course_templates/` is the list, as the original service's router took it.
    // `//api/…` (a base URL ending in `/` joined to `/api/…`) is `/api/…`, as Rails' router squeezed slashes.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    clientErrorHandler: answerClientError,
    // Behind an ingress every client would otherwise share its address (docs/rate-limits.md "Client address").
    trustProxy: runtime.config.trustedProxies.length > 0 ? runtime.config.trustedProxies : false,
    // While closing, a request on a kept-alive connection is still served, with `Connection: close`, rather
    // than Fastify's bare 503: the services are up until the gateway has drained.
    return503OnClosing: false,
    // The router rejects some requests (malformed URL, over-long parameter) before any hook or handler runs.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      replyWithProblem(error, request, reply, runtime.logger);
    },
  });
  // Only JSON and form bodies are read: any other content type is refused with 415 by Fastify itself.
  const fastify = adapter.getInstance();
  declareRequestState(fastify);
  // text/plain is read only for the SCORM player's beacon commits (acceptUploads); routes refuse it.
  fastify.removeContentTypeParser('text/plain');
  // Many clients send `Content-Type: application/json` on a DELETE or POST with no body: that is no body,
  // not malformed JSON. Everything else goes through Fastify's own parser (prototype-poisoning checks included).
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    if ((raw as Buffer).length === 0) return done(null, undefined);
    let body: string;
    try {
      assertIdentityCoding(request.headers['content-encoding']);
      body = utf8Text(raw as Buffer);
    } catch (err) {
      return done(err as Error);
    }
    parseJson(request, body, (err, parsed) => done(err && prototypeKeys(body, err), parsed));
  });
  // Forms, as clients of the original service send bodies (docs/compatibility.md); validated like JSON.
  acceptFormBodies(fastify);
  // Files (SCORM packages) for the upload routes, streamed to the file store unread.
  acceptUploads(fastify, routes);

  const deps: GatewayDeps = { runtime, routes, indicators: options.indicators ?? [], lifecycle: { closing: false } };
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(deps), adapter, {
    logger: new NestLogger(runtime.logger),
    bodyParser: false,
    abortOnError: false,
  });
  app.useGlobalFilters(new ProblemFilter(runtime.logger));
  try {
    await app.listen(runtime.config.port, runtime.config.host);
  } catch (err) {
    // A taken port or a clashing route table: release what was built before reporting.
    await app.close().catch(() => undefined);
    throw err;
  }

  const url = baseUrl(app.getHttpServer().address(), runtime.config.host);
  runtime.logger.info({ url, routes: routes.length }, 'gateway listening');
  return {
    name: 'gateway',
    url,
    app,
    indicators: [busIndicator(deps)],
    metrics: async () => {
      const metrics = app.get(HttpMetrics);
      return { contentType: metrics.contentType, text: await metrics.text() };
    },
    close: async () => {
      deps.lifecycle.closing = true;
      await app.get(RequestDrain).drain(app.getHttpServer());
      await app.close();
    },
  };
}

if (isEntrypoint(import.meta.url)) await runStandalone('gateway', start, { serveHealth: true, usesEvents: false });
