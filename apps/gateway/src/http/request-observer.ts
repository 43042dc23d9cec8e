import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { HttpMetrics } from '../metrics/http-metrics.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Unmatched requests share one label value, so scanners cannot blow up the metric's cardinality. */
const UNMATCHED = 'unmatched';

/**
 * Echoes the request id on every answer, writes one JSON log line and one metric sample per request,
 * and closes connections once the gateway is closing.
 */
@Injectable()
export class RequestObserver implements OnModuleInit {
  constructor(
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: HttpMetrics,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const logger = this.deps.runtime.logger;
    // Callback hooks, not async ones: an async hook costs a promise and a microtask turn on every request.
    fastify.addHook('onRequest', (request, reply, done) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      done();
    });
    fastify.addHook('onSend', (_request, reply, payload, done) => {
      // A keep-alive connection whose request was in flight when closing began would hold the server open.
      if (this.deps.lifecycle.closing) reply.header('connection', 'close');
      done(null, payload);
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? UNMATCHED;
      const durationMs = reply.elapsedTime;
      this.metrics.observe(request.method, route, reply.statusCode, durationMs / 1000);
      if (logger.isLevelEnabled('info')) {
        logger.info(
          { requestId: request.id, method: request.method, route, url: request.url, status: reply.statusCode, durationMs: Math.round(durationMs * 100) / 100 },
          'request',
        );
      }
      done();
    });
  }
}
