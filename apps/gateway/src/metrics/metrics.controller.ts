import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError } from '../http/problem.js';
import { HttpMetrics } from './http-metrics.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * `/metrics` on the public port tells an attacker the routes, their traffic and error rates: it is served
 * only when `METRICS_TOKEN` is set, and only to that bearer token. The health port (HEALTH_PORT, not exposed
 * outside the cluster) serves it to Prometheus without one.
 */
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: HttpMetrics,
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
  ) {}

  @Get('metrics')
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    const token = this.deps.runtime.config.metricsToken;
    if (token === undefined) throw new ProblemError(404, 'ROUTE_NOT_FOUND', 'Metrics are served on the health port, or here with METRICS_TOKEN set.');
    const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), digest(token))) {
      throw new ProblemError(401, 'UNAUTHENTICATED', 'Metrics need the METRICS_TOKEN bearer token.', undefined, { 'www-authenticate': 'Bearer realm="metrics"' });
    }
    const text = await this.metrics.text();
    await reply.header('content-type', this.metrics.contentType).header('cache-control', 'no-store').send(text);
  }
}
