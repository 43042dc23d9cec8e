import { Histogram, register } from 'prom-client';

let histogram: Histogram<'queue' | 'subject' | 'status'> | undefined;
/** One child per label set: prom-client would otherwise hash the label object on every observation. */
const children = new Map<string, { observe(value: number): void }>();

/**
 * RPC handling time per service queue, subject and answered status, on prom-client's process-wide
 * registry: a service running alone serves it on HEALTH_PORT, the all-in-one gateway merges it in.
 */
export function observeRpc(queue: string, subject: string, status: number, seconds: number): void {
  histogram ??=
    (register.getSingleMetric('rpc_server_duration_seconds') as Histogram<'queue' | 'subject' | 'status'> | undefined) ??
    new Histogram({
      name: 'rpc_server_duration_seconds',
      help: 'RPC requests handled by a service, by queue (service), subject and answered status',
      labelNames: ['queue', 'subject', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    });
  const key = `${queue} ${subject} ${status}`;
  let child = children.get(key);
  if (!child) {
    child = histogram.labels({ queue, subject, status: String(status) });
    children.set(key, child);
  }
  child.observe(seconds);
}
