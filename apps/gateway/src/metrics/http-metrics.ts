import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Histogram, register, Registry } from 'prom-client';

/**
 * Prometheus metrics of one gateway. Its own registry, not prom-client's global one, so several
 * gateways in one process (all-in-one, tests) never clash over metric names.
 */
@Injectable()
export class HttpMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  /** One child per label set: prom-client would otherwise hash the label object on every observation. */
  private readonly children = new Map<string, { observe(value: number): void }>();

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
    const key = `${method} ${route} ${status}`;
    let child = this.children.get(key);
    if (!child) {
      child = this.duration.labels({ method, route, status: String(status) });
      this.children.set(key, child);
    }
    child.observe(seconds);
  }

  /** This gateway's metrics, plus the process-wide ones: in all-in-one mode, the services' RPC metrics. */
  text(): Promise<string> {
    // A name this gateway already exports (process metrics, when something else collects them too) is not repeated.
    const own = new Set(this.registry.getMetricsAsArray().map((metric) => metric.name));
    const shared = new Registry();
    for (const { name } of register.getMetricsAsArray()) {
      const metric = own.has(name) ? undefined : register.getSingleMetric(name);
      if (metric) shared.registerMetric(metric);
    }
    return Registry.merge([this.registry, shared]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onModuleDestroy(): void {
    this.registry.clear();
  }
}
