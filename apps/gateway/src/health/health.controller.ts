import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { HealthIndicator } from '@lms/platform';
import type { FastifyReply } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { readiness, type Readiness } from './readiness.js';

/** The gateway's own dependency: the bus every request travels over. */
export const busIndicator = (deps: GatewayDeps): HealthIndicator => ({ name: 'bus', check: () => deps.runtime.bus.ping() });

@Controller()
export class HealthController {
  private readonly indicators: HealthIndicator[];

  constructor(@Inject(GATEWAY_DEPS) deps: GatewayDeps) {
    this.indicators = [busIndicator(deps), ...deps.indicators];
  }

  /** Liveness: the process answers; dependencies do not matter here (restarting would not fix them). */
  @Get('healthz')
  live(@Res({ passthrough: true }) reply: FastifyReply): { status: 'ok' } {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const result: Readiness = await readiness(this.indicators);
    await reply.code(result.status === 'ok' ? 200 : 503).header('cache-control', 'no-store').send(result);
  }
}
