import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, register } from 'prom-client';
import type { HealthIndicator, MetricsText } from '../runtime/runtime.js';
import { SECURITY_HEADERS } from './security-headers.js';

let defaultMetricsStarted = false;

/**
 * How often the event-loop delay histogram samples (prom-client's default is 10 ms). Its timer wakes an idle
 * process: 3.8 ms of CPU a second at 10 ms, 1.7 at 100 (docs/operations.md, "What to watch"); a 100 ms sample still
 * catches every stall the alerts care about.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * Process metrics (CPU, memory, GC, event loop) in prom-client's global registry, once per process, whatever
 * number of deployables and gateways it hosts: each collection starts a delay monitor and a GC observer that
 * are never stopped.
 */
export function ensureDefaultMetrics(): void {
  if (defaultMetricsStarted) return;
  defaultMetricsStarted = true;
  collectDefaultMetrics({ eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, { status: 'ok' | 'down'; error?: string }>;
}

/** Runs every indicator with a deadline, so a hung dependency reports down instead of hanging the probe. */
export async function checkHealth(indicators: HealthIndicator[], timeoutMs = 2000): Promise<HealthReport> {
  const results = await Promise.all(
    indicators.map(async (indicator) => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([indicator.check(), deadline]);
        return [indicator.name, { status: 'ok' as const }] as const;
      } catch (err) {
        return [indicator.name, { status: 'down' as const, error: err instanceof Error ? err.message : String(err) }] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const checks = Object.fromEntries(results);
  return { status: results.every(([, r]) => r.status === 'ok') ? 'ok' : 'unavailable', checks };
}

const processMetrics = async (): Promise<MetricsText> => ({ contentType: register.contentType, text: await register.metrics() });

/**
 * `/healthz`, `/readyz` and `/metrics` on a small port of their own, kept inside the cluster: for services
 * that speak no HTTP otherwise, and for the gateway's metrics (`metrics`), which its public port keeps to itself.
 */
export async function startHealthServer(port: number, host: string, indicators: () => HealthIndicator[], metrics: () => Promise<MetricsText> = processMetrics): Promise<Server> {
  ensureDefaultMetrics();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return json(405, { status: 'method not allowed' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      return void checkHealth(indicators()).then((report) => json(report.status === 'ok' ? 200 : 503, report));
    }
    if (path === '/metrics') {
      return void metrics().then(
        ({ contentType, text }) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(text);
        },
        () => json(500, { status: 'metrics unavailable' }),
      );
    }
    json(404, { status: 'not found' });
  });
  await new Promise<void>((resolvePromise) => server.listen(port, host, resolvePromise));
  return server;
}
