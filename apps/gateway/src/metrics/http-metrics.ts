import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ensureDefaultMetrics } from '@lms/platform';
import { Histogram, register, Registry } from 'prom-client';

/**
 * Prometheus metrics of one gateway. Its own registry, not prom-client's global one, so several
 * gateways in one process (all-in-one, tests) never clash over metric names; the process metrics are the
 * global registry's, collected once per process.
 */
@Injectable()
export class HttpMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  /** One child per label set: prom-client would otherwise hash the label object on every observation. */
  private readonly children = new Map<string, { observe(value: number): void }>();

  constructor() {
    ensureDefaultMetrics();
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
    const key = `${method} ${route} ${status}`;
    let child = this.children.get(key);
    if (!child) {
      child = this.duration.labels({ method, route, status: String(status) });
      this.children.set(key, child);
    }
    child.observe(seconds);
  }

  /** This gateway's metrics, plus the process-wide ones: process metrics and, in all-in-one mode, the services' RPC metrics. */
  text(): Promise<string> {
    return Registry.merge([this.registry, register]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onModuleDestroy(): void {
    this.registry.clear();
  }
}
