import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HttpMetrics } from './http-metrics.js';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: HttpMetrics) {}

  @Get('metrics')
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const text = await this.metrics.text();
    await reply.header('content-type', this.metrics.contentType).header('cache-control', 'no-store').send(text);
  }
}
