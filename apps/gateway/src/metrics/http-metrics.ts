import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one gateway. Its own registry, not prom-client's global one, so several
 * gateways in one process (all-in-one, tests) never clash over metric names.
 */
@Injectable()
export class HttpMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly duration: Histogram<'method' | 'route' | 'status'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route path template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }

  /** `route` is the template (`/api/author/custom_fields/:id`), never the raw path: label values stay few. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.duration.observe({ method, route, status: String(status) }, seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onModuleDestroy(): void {
    this.registry.clear();
  }
}
