// Event delivery, outbox commit to consumer commit, on the embedded default's Postgres event log and on
// JetStream, side by side: the path every domain event takes (outbox row committed with the change, the
// relay nudged at commit, the log, an inbox consumer committing its effect). Two passes per log:
//  - latency: one event at a time on an otherwise idle system, p50/p99/max over the samples;
//  - throughput: a burst of events committed by several writers, events/s until the consumer committed all.
// Runs inside `npm run bench` (bench/run.mjs) or alone: `node bench/event-delivery.mjs` after `npm run build`.
//
// Settings (environment): BENCH_DATABASE_URL, BENCH_NATS_URL, BENCH_EVENT_SAMPLES (500 latency samples),
// BENCH_EVENT_BURST (2000 events in the throughput pass).
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

const SCHEMA = 'bench_events';
const TYPE = 'bench.item.created';
const DURABLE = 'bench-consumer';

const intSetting = (name, fallback) => {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function withClient(url, work) {
  const client = new pg.Client({ connectionString: url, application_name: 'lms-bench' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * One service's event plumbing in miniature on `log`: outbox, relay nudged at commit, inbox consumer with an
 * effect row; `commit()` commits one event with a domain row and resolves when the consumer has committed.
 */
async function plumbing(platform, databaseUrl, log) {
  const { openDatabase, eventTablesUp, Outbox, OutboxRelay, subscribeWithInbox, createLogger } = platform;
  const logger = createLogger('silent');
  class BenchEventsSchema1700000000000 {
    name = 'BenchEventsSchema1700000000000';
    async up(q) {
      await q.query(`CREATE TABLE ${SCHEMA}.items (id serial PRIMARY KEY, n integer NOT NULL)`);
      await q.query(`CREATE TABLE ${SCHEMA}.effects (event_id uuid PRIMARY KEY, committed_at timestamptz NOT NULL DEFAULT clock_timestamp())`);
      await eventTablesUp(q, SCHEMA);
    }
    async down() {}
  }
  const db = await openDatabase({ url: databaseUrl, schema: SCHEMA, entities: [], migrations: [BenchEventsSchema1700000000000], logger });
  const outbox = new Outbox(db, 'bench');
  const relay = new OutboxRelay(db, log, logger);
  outbox.onAdded(() => relay.nudge());
  relay.start();

  const waiting = new Map();
  // Resolved once the inbox transaction (the handler's effect and its inbox row) has committed.
  const committing = {
    ensureStreams: () => log.ensureStreams(),
    publish: (e) => log.publish(e),
    deadLetters: (d) => log.deadLetters(d),
    consume: (options, handler) =>
      log.consume(options, async (event, info) => {
        await handler(event, info);
        waiting.get(event.data.n)?.(performance.now());
      }),
  };
  const subscription = await subscribeWithInbox(db, committing, { durable: DURABLE, types: [TYPE], maxDeliver: 5, backoffMs: [100] }, async (event, manager) => {
    await manager.query(`INSERT INTO ${SCHEMA}.effects (event_id) VALUES ($1)`, [event.id]);
  });

  let next = 0;
  return {
    /** Commits one event; resolves with [commit time, consumer commit time] in ms. */
    async commit() {
      const n = next++;
      const consumed = new Promise((resolve) => waiting.set(n, resolve));
      await db.transaction(async (manager) => {
        await manager.query(`INSERT INTO ${SCHEMA}.items (n) VALUES ($1)`, [n]);
        await outbox.add({ accountId: 1 }, TYPE, { n });
      });
      const committedAt = performance.now();
      const consumedAt = await consumed;
      waiting.delete(n);
      return [committedAt, consumedAt];
    },
    async close() {
      await subscription.unsubscribe();
      await relay.stop();
      await db.close();
    },
  };
}

async function measure(name, platform, databaseUrl, log, { samples, burst }) {
  const p = await plumbing(platform, databaseUrl, log);
  try {
    for (let i = 0; i < 50; i++) await p.commit(); // warm-up: connections, prepared plans, JIT
    const latencies = [];
    for (let i = 0; i < samples; i++) {
      const [committedAt, consumedAt] = await p.commit();
      latencies.push(consumedAt - committedAt);
      await new Promise((resolve) => setTimeout(resolve, 2)); // idle between events: each one finds the system at rest
    }
    latencies.sort((a, b) => a - b);

    const writers = 8;
    const started = performance.now();
    let lastConsumed = started;
    let issued = 0;
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (issued < burst) {
          issued++;
          const [, consumedAt] = await p.commit();
          lastConsumed = Math.max(lastConsumed, consumedAt);
        }
      }),
    );
    const eventsPerS = (burst / (lastConsumed - started)) * 1000;
    return {
      log: name,
      samples,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies[latencies.length - 1],
      burst,
      writers,
      eventsPerS,
    };
  } finally {
    await p.close();
  }
}

/**
 * Both logs on a fresh database each (dropped at the end), JetStream in its own namespace (streams deleted).
 * @returns {Promise<object[]>} one row per log
 */
export async function benchEventDelivery({ databaseServerUrl, natsUrl, log = () => undefined }) {
  const platform = await import('@lms/platform');
  const settings = { samples: intSetting('BENCH_EVENT_SAMPLES', 500), burst: intSetting('BENCH_EVENT_BURST', 2000) };
  const rows = [];
  const kinds = [
    ['embedded (Postgres log)', async (databaseUrl) => {
      const events = new platform.PostgresEventLog({ url: databaseUrl, namespace: '' });
      await events.ensureStreams();
      return { events, close: () => events.close() };
    }],
    ['NATS JetStream', async () => {
      const nc = await connect({ servers: natsUrl, name: 'lms-bench-events', timeout: 5_000 });
      const namespace = `bench_ev_${randomBytes(4).toString('hex')}`;
      const events = new platform.JetStreamEventLog(nc, namespace);
      await events.ensureStreams();
      return {
        events,
        close: async () => {
          const jsm = await jetstreamManager(nc);
          await jsm.streams.delete(events.eventsStream).catch(() => undefined);
          await jsm.streams.delete(events.deadLetterStream).catch(() => undefined);
          await nc.close();
        },
      };
    }],
  ];
  for (const [name, open] of kinds) {
    const database = `lms_bench_ev_${randomBytes(4).toString('hex')}`;
    await withClient(databaseServerUrl, (c) => c.query(`CREATE DATABASE ${database}`));
    const url = new URL(databaseServerUrl);
    url.pathname = `/${database}`;
    let opened;
    try {
      opened = await open(url.toString());
      log(`event delivery on ${name}: ${settings.samples} one-at-a-time events, then a burst of ${settings.burst}`);
      const row = await measure(name, platform, url.toString(), opened.events, settings);
      log(`${name}: p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms, ${row.eventsPerS.toFixed(0)} events/s`);
      rows.push(row);
    } finally {
      await opened?.close().catch(() => undefined);
      await withClient(databaseServerUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    }
  }
  return rows;
}

export function formatEventTable(rows) {
  const header = ['event log', 'events/s', 'p50 ms', 'p99 ms', 'max ms', 'samples'];
  const lines = rows.map((r) => [r.log, r.eventsPerS.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), r.maxMs.toFixed(2), String(r.samples)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return ['event delivery, outbox commit -> consumer commit (latency: one event at a time, idle; events/s: burst from 8 writers)', format(header), ...lines.map(format)].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchEventDelivery({
    databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
    log: (message) => process.stderr.write(`bench: ${message}\n`),
  });
  process.stdout.write(`\n${formatEventTable(rows)}\n`);
  process.exit(0);
}
