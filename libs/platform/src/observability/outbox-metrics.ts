import { Gauge, register } from 'prom-client';

/** What one service's outbox holds that the relay has not published yet. */
export interface OutboxBacklog {
  unpublished: number;
  /** Age of the oldest of them; 0 when there is none. */
  oldestSeconds: number;
}

/** The outboxes of this process by schema (one in a service, each service's in the all-in-one). */
const outboxes = new Map<string, () => Promise<OutboxBacklog>>();
let gauges: { unpublished: Gauge<'schema'>; oldest: Gauge<'schema'> } | undefined;

/** Reads every watched outbox once per scrape, for both gauges. */
async function collect(this: Gauge<'schema'>): Promise<void> {
  const backlogs = await Promise.all([...outboxes].map(async ([schema, read]) => [schema, await read().catch(() => undefined)] as const));
  for (const [schema, backlog] of backlogs) {
    if (!backlog) continue; // the database is away: the readiness probe says so, the gauge keeps its last value
    gauges?.unpublished.set({ schema }, backlog.unpublished);
    gauges?.oldest.set({ schema }, backlog.oldestSeconds);
  }
}

/**
 * Exposes a service's outbox backlog on the process-wide registry (HEALTH_PORT's /metrics): events
 * committed but not yet on the bus. A backlog that grows or ages is the alert for a relay that cannot
 * publish (docs/operations.md). Returns the function that stops watching.
 */
export function watchOutbox(schema: string, read: () => Promise<OutboxBacklog>): () => void {
  gauges ??= {
    unpublished: new Gauge({ name: 'outbox_unpublished_events', help: 'Events committed to a service outbox and not yet published to the bus', labelNames: ['schema'], collect }),
    // Read by the first gauge's collect; both are set from one query per outbox.
    oldest: new Gauge({ name: 'outbox_oldest_unpublished_seconds', help: 'Age of the oldest unpublished outbox event (0 when none)', labelNames: ['schema'] }),
  };
  outboxes.set(schema, read);
  return () => {
    if (outboxes.get(schema) !== read) return;
    outboxes.delete(schema);
    gauges?.unpublished.remove({ schema });
    gauges?.oldest.remove({ schema });
  };
}

/** For tests: the current value of the backlog gauge of one schema. */
export async function outboxBacklogMetric(schema: string): Promise<{ unpublished?: number; oldestSeconds?: number }> {
  const metrics = await register.getMetricsAsJSON();
  const value = (name: string) => metrics.find((m) => m.name === name)?.values.find((v) => v.labels.schema === schema)?.value;
  return { unpublished: value('outbox_unpublished_events'), oldestSeconds: value('outbox_oldest_unpublished_seconds') };
}
