import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@lms/contracts';
import { createTestDatabase, testEvent, testNatsUrl, uniqueName, type TestDatabase } from '@lms/testing';
import { AckPolicy, DeliverPolicy, jetstream, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { type ConsumerOptions, type DeliveryInfo, type EventLog, LeaseLost, type Subscription } from '../messaging/message-bus.js';
import { createLogger } from '../observability/logger.js';
import { openDatabase, type Database } from '../persistence/database.js';
import { eventTablesDown, eventTablesUp, inboxAgeIndexUp } from './event-tables.js';
import { subscribeWithInbox } from './inbox-consumer.js';
import { JetStreamEventLog } from './jetstream-event-log.js';
import { Outbox } from './outbox.js';
import { OutboxRelay } from './outbox-relay.js';
import { outboxBacklogMetric } from '../observability/outbox-metrics.js';
import { PostgresEventLog } from './postgres-event-log.js';

const SCHEMA = 'evtest';
const logger = createLogger('silent');

/** A service's first migration in miniature: a domain table, an effects table, and the event tables. */
class EventTestSchema1700000000000 implements MigrationInterface {
  name = 'EventTestSchema1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE ${SCHEMA}.demo (id serial PRIMARY KEY, account_id integer NOT NULL, name text NOT NULL)`);
    await q.query(`CREATE TABLE ${SCHEMA}.effects (id serial PRIMARY KEY, consumer text NOT NULL, event_id uuid NOT NULL)`);
    await eventTablesUp(q, SCHEMA);
    await inboxAgeIndexUp(q, SCHEMA);
  }
  async down(q: QueryRunner): Promise<void> {
    await eventTablesDown(q, SCHEMA);
    await q.query(`DROP TABLE ${SCHEMA}.effects`);
    await q.query(`DROP TABLE ${SCHEMA}.demo`);
  }
}

const cloudEvent = (type: string, data: unknown = {}): CloudEvent => testEvent(type, data, { source: '/evtest', accountid: 7 });

/** Polls until `check` holds; fails with `what` after the deadline instead of hanging. */
async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 4_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * One event log implementation behind the shared contract below. `open` gives what one process sees of
 * the log; opening it again is another process (or the same one restarted) on the same stored log.
 */
interface Harness {
  open(): Promise<EventLog>;
  /** Ends the process of a log abruptly: nothing in flight is acknowledged or handed back. */
  crash(log: EventLog): Promise<void>;
  /** Publishes text that is not a CloudEvent, as a foreign or broken publisher could. */
  publishRaw?(type: string, text: string): Promise<void>;
  close(): Promise<void>;
}

/** JetStream needs a NATS server; without one (TEST_NATS_URL empty) only the Postgres log runs. */
const natsUrl = testNatsUrl();
const kinds: [string, (testDb: TestDatabase) => Promise<Harness>][] = [
  [
    'Postgres',
    async (testDb) => {
      const namespace = uniqueName('ns');
      const logs: PostgresEventLog[] = [];
      return {
        open: async () => {
          const log = new PostgresEventLog({ url: testDb.url, namespace, logger, poolSize: 4 });
          logs.push(log);
          await log.ensureStreams();
          return log;
        },
        crash: (log) => (log as PostgresEventLog).close(),
        close: async () => {
          await Promise.all(logs.map((l) => l.close()));
        },
      };
    },
  ],
];
if (natsUrl) {
  kinds.unshift([
    'JetStream',
    async () => {
      const namespace = uniqueName('ns');
      const connections = new Map<EventLog, NatsConnection>();
      let first: JetStreamEventLog | undefined;
      return {
        open: async () => {
          const nc = await connect({ servers: natsUrl });
          const log = new JetStreamEventLog(nc, namespace, logger);
          await log.ensureStreams();
          connections.set(log, nc);
          first ??= log;
          return log;
        },
        crash: async (log) => {
          await connections.get(log)?.close();
        },
        publishRaw: async (type, text) => {
          const [nc] = connections.values();
          await jetstream(nc).publish(`${namespace}.events.${type}`, text);
        },
        close: async () => {
          const nc = await connect({ servers: natsUrl });
          const jsm = await jetstreamManager(nc);
          if (first) {
            await jsm.streams.delete(first.eventsStream);
            await jsm.streams.delete(first.deadLetterStream);
          }
          await nc.close();
          await Promise.all([...connections.values()].map((c) => (c.isClosed() ? undefined : c.close())));
        },
      };
    },
  ]);
}

describe.each(kinds)('events over the %s log', (kind, makeHarness) => {
  let testDb: TestDatabase;
  let db: Database;
  let harness: Harness;
  let log: EventLog;
  let outbox: Outbox;
  let relay: OutboxRelay;
  const subscriptions: Subscription[] = [];
  const relays: OutboxRelay[] = [];

  const options = (durable: string, types: string[], more: Partial<ConsumerOptions> = {}): ConsumerOptions => ({
    durable,
    types,
    maxDeliver: 3,
    backoffMs: [100, 200],
    ackWaitMs: 5_000,
    ...more,
  });

  /** Records every delivery of a plain (inbox-less) consumer. */
  async function recordDeliveries(durable: string, types: string[]): Promise<string[]> {
    const seen: string[] = [];
    subscriptions.push(
      await log.consume(options(durable, types), async (event) => {
        seen.push(event.id);
      }),
    );
    return seen;
  }

  /** Commits one event with a demo row, as a service's use case would. */
  async function commitEvent(type: string, name = 'row'): Promise<CloudEvent> {
    return db.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${SCHEMA}.demo (account_id, name) VALUES ($1, $2)`, [7, name]);
      return outbox.add({ accountId: 7 }, type, { name });
    });
  }

  const publishedAt = async (id: string): Promise<Date | null> => {
    const rows: { published_at: Date | null }[] = await db.manager.query(`SELECT published_at FROM ${SCHEMA}.outbox WHERE id = $1`, [id]);
    if (rows.length !== 1) throw new Error(`outbox row ${id} not found`);
    return rows[0].published_at;
  };

  const countRows = async (sql: string, params: unknown[]): Promise<number> => {
    const rows: { n: number }[] = await db.manager.query(sql, params);
    return rows[0].n;
  };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: SCHEMA, entities: [], migrations: [EventTestSchema1700000000000], poolSize: 5 });
    harness = await makeHarness(testDb);
    log = await harness.open();
    outbox = new Outbox(db, 'evtest');
    relay = new OutboxRelay(db, log, logger);
  });

  afterAll(async () => {
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
    await Promise.all(relays.map((r) => r.stop()));
    await harness?.close();
    await db?.close();
    await testDb?.drop();
  });

  it('delivers an event committed with its row once, even when the relay dies after publishing and before marking', async () => {
    const seen = await recordDeliveries('a_once', ['evtest.a.*']);
    const event = await commitEvent('evtest.a.placed');

    // This relay publishes, then dies before it can mark the row.
    const diesAfterPublishing: EventLog = {
      ...bind(log),
      publish: async (e) => {
        await log.publish(e);
        throw new Error('relay died');
      },
    };
    const dying = new OutboxRelay(db, diesAfterPublishing, logger);
    await expect(dying.runOnce()).rejects.toThrow('relay died');
    expect(await publishedAt(event.id)).toBeNull();

    // A fresh relay publishes it again: the log recognises the event id.
    const duplicates: boolean[] = [];
    const recordsDuplicates: EventLog = {
      ...bind(log),
      publish: async (e) => {
        const result = await log.publish(e);
        duplicates.push(result.duplicate);
        return result;
      },
    };
    const fresh = new OutboxRelay(db, recordsDuplicates, logger);
    expect(await fresh.runOnce()).toBe(1);
    expect(duplicates).toEqual([true]);
    expect(await publishedAt(event.id)).toBeInstanceOf(Date);

    // Events arrive in order: once the later barrier is here, a second copy would have been too.
    const barrier = await commitEvent('evtest.a.barrier');
    expect(await relay.runOnce()).toBe(1);
    await waitUntil('the barrier is delivered', () => seen.includes(barrier.id));
    expect(seen).toEqual([event.id, barrier.id]);
  });

  it('gives a redelivered event no second effect', async () => {
    const durable = 'b_effect';
    let effects = 0;
    const acks: DeliveryInfo[] = [];
    // The handler's transaction commits, then the acknowledgement is lost once: the log delivers again.
    const losesFirstAck: EventLog = {
      ...bind(log),
      consume: (opts, handler) =>
        log.consume(opts, async (e, info) => {
          await handler(e, info);
          if (info.deliveryCount === 1) throw new Error('ack lost');
          acks.push(info);
        }),
    };
    subscriptions.push(
      await subscribeWithInbox(db, losesFirstAck, options(durable, ['evtest.b.requested']), async (e, manager) => {
        effects++;
        await manager.query(`INSERT INTO ${SCHEMA}.effects (consumer, event_id) VALUES ($1, $2)`, [durable, e.id]);
      }),
    );

    const event = await commitEvent('evtest.b.requested');
    await relay.runOnce();
    await waitUntil('the redelivery is acknowledged', () => acks.length === 1);

    expect(acks[0].deliveryCount).toBe(2);
    expect(effects).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.effects WHERE event_id = $1`, [event.id])).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.inbox WHERE consumer = $1 AND event_id = $2`, [durable, event.id])).toBe(1);
  });

  it('rolls back the inbox row with a failing handler, so the retry runs the handler again', async () => {
    const durable = 'b_retry';
    const calls: number[] = [];
    subscriptions.push(
      await subscribeWithInbox(db, log, options(durable, ['evtest.b2.requested']), async (e, manager) => {
        await manager.query(`INSERT INTO ${SCHEMA}.effects (consumer, event_id) VALUES ($1, $2)`, [durable, e.id]);
        calls.push(calls.length + 1);
        if (calls.length === 1) throw new Error('failed after writing');
      }),
    );

    const event = await commitEvent('evtest.b2.requested');
    await relay.runOnce();
    await waitUntil('the retry has committed', async () => (await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.inbox WHERE event_id = $1`, [event.id])) === 1);

    expect(calls).toEqual([1, 2]);
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.effects WHERE event_id = $1`, [event.id])).toBe(1);
  });

  it('dead-letters an event whose consumer always fails, without blocking the events behind it', async () => {
    const durable = 'c_poison';
    const maxDeliver = 3;
    const badAttempts: number[] = [];
    let badAttemptsWhenGoodHandled = -1;
    subscriptions.push(
      await subscribeWithInbox(
        db,
        log,
        options(durable, ['evtest.c.*'], { maxDeliver, backoffMs: [300, 300] }),
        async (e, manager) => {
          await manager.query(`INSERT INTO ${SCHEMA}.effects (consumer, event_id) VALUES ($1, $2)`, [durable, e.id]);
          if (e.type === 'evtest.c.bad') {
            badAttempts.push(badAttempts.length + 1);
            throw new Error('poison event');
          }
          badAttemptsWhenGoodHandled = badAttempts.length;
        },
      ),
    );

    const [bad, good] = await db.transaction(async () => [
      await outbox.add({ accountId: 7 }, 'evtest.c.bad', { n: 1 }),
      await outbox.add({ accountId: 7 }, 'evtest.c.good', { n: 2 }),
    ]);
    expect(await relay.runOnce()).toBe(2);

    await waitUntil('the bad event is dead-lettered', async () => (await log.deadLetters(durable)).length === 1);
    // The good event, published after the bad one, was handled while the bad one still had retries left.
    expect(badAttemptsWhenGoodHandled).toBeGreaterThanOrEqual(1);
    expect(badAttemptsWhenGoodHandled).toBeLessThan(maxDeliver);
    expect(badAttempts).toEqual([1, 2, 3]);
    const [letter] = await log.deadLetters(durable);
    expect(letter).toEqual({ durable, event: bad, error: 'poison event', deliveries: maxDeliver });
    // Every failed attempt rolled back, the good one committed.
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.effects WHERE consumer = $1 AND event_id = $2`, [durable, bad.id])).toBe(0);
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.inbox WHERE consumer = $1`, [durable])).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.inbox WHERE consumer = $1 AND event_id = $2`, [durable, good.id])).toBe(1);
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    const seen = await recordDeliveries('d_rollback', ['evtest.d.*']);
    await relay.runOnce(); // leftovers of earlier tests, if any, are out of the way

    let added: CloudEvent | undefined;
    await expect(
      db.transaction(async (manager) => {
        await manager.query(`INSERT INTO ${SCHEMA}.demo (account_id, name) VALUES ($1, $2)`, [7, 'rolled back']);
        added = await outbox.add({ accountId: 7 }, 'evtest.d.created', { name: 'rolled back' });
        throw new Error('use case failed');
      }),
    ).rejects.toThrow('use case failed');

    expect(added).toBeDefined();
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE type = 'evtest.d.created'`, [])).toBe(0);
    expect(await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.demo WHERE name = 'rolled back'`, [])).toBe(0);
    expect(await relay.runOnce()).toBe(0);

    const barrier = await commitEvent('evtest.d.barrier');
    expect(await relay.runOnce()).toBe(1);
    await waitUntil('the barrier is delivered', () => seen.includes(barrier.id));
    expect(seen).toEqual([barrier.id]);
  });

  it('refuses an outbox event outside a transaction', async () => {
    await expect(outbox.add({ accountId: 7 }, 'evtest.e.orphan', {})).rejects.toThrow('inside db.transaction');
    await expect(outbox.addAll({ accountId: 7 }, 'evtest.e.orphan', [{ data: {} }])).rejects.toThrow('inside db.transaction');
    await expect(outbox.addAll({ accountId: 7 }, 'evtest.e.orphan', [])).rejects.toThrow('inside db.transaction');
  });

  it('adds many events in their order as add would, past one statement of them, and delivers them', async () => {
    const seen = await recordDeliveries('e_many', ['evtest.e.*']);
    await relay.runOnce();
    const count = 5_003; // two statements
    await db.transaction(() => outbox.addAll({ accountId: 7 }, 'evtest.e.many', Array.from({ length: count }, (_, n) => ({ data: { n }, ...(n % 2 ? { subject: `s${n}` } : {}) }))));
    const rows: { id: string; type: string; subject: string | null; account_id: number; payload: CloudEvent<{ n: number }> }[] = await db.manager.query(
      `SELECT id, type, subject, account_id, payload FROM ${SCHEMA}.outbox WHERE type = 'evtest.e.many' ORDER BY created_at`,
    );
    // No two share a moment: the relay's order (created_at) is the order they were added in.
    const [{ moments }] = (await db.manager.query(`SELECT count(DISTINCT created_at)::int AS moments FROM ${SCHEMA}.outbox WHERE type = 'evtest.e.many'`)) as { moments: number }[];
    expect(moments).toBe(count);
    expect(rows.map((r) => r.payload.data.n)).toEqual(Array.from({ length: count }, (_, n) => n));
    for (const [n, row] of [[0, rows[0]], [1, rows[1]], [count - 1, rows[count - 1]]] as const) {
      const subject = n % 2 ? `s${n}` : undefined;
      expect(row).toEqual({ id: row.payload.id, type: 'evtest.e.many', subject: subject ?? null, account_id: 7, payload: expect.objectContaining({ type: 'evtest.e.many', accountid: 7, source: '/evtest', data: { n } }) });
      expect(row.payload.subject).toBe(subject);
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(count);
    // Nothing added, nothing written; and what was added is published, in order.
    await db.transaction(() => outbox.addAll({ accountId: 7 }, 'evtest.e.none', []));
    let published = 0;
    for (let runs = 0; published < count && runs < 1_000; runs++) published += await relay.runOnce();
    await waitUntil('all are delivered', () => seen.length >= count, 30_000);
    expect(seen).toEqual(rows.map((r) => r.id));
  }, 60_000);

  it('dates what a transaction adds after a large batch later than the whole batch', async () => {
    await db.transaction(async () => {
      await outbox.addAll({ accountId: 7 }, 'evtest.e.batch', Array.from({ length: 20_000 }, (_, n) => ({ data: { n } })));
      await outbox.add({ accountId: 7 }, 'evtest.e.after', {});
      await outbox.addAll({ accountId: 7 }, 'evtest.e.after', [{ data: {} }]);
    });
    const [order] = (await db.manager.query(
      `SELECT (SELECT max(created_at) FROM ${SCHEMA}.outbox WHERE type = 'evtest.e.batch') < (SELECT min(created_at) FROM ${SCHEMA}.outbox WHERE type = 'evtest.e.after') AS later`,
    )) as { later: boolean }[];
    expect(order.later).toBe(true);
    await db.manager.query(`DELETE FROM ${SCHEMA}.outbox WHERE type IN ('evtest.e.batch', 'evtest.e.after')`);
  });

  it('publishes soon after commit when the outbox nudges a running relay', async () => {
    const seen = await recordDeliveries('f_nudge', ['evtest.f.*']);
    // The poll is far beyond the wait below: only the nudge after commit can publish in time.
    const polling = new OutboxRelay(db, log, logger, { intervalMs: 600_000 });
    relays.push(polling);
    let nudges = 0;
    const off = outbox.onAdded(() => {
      nudges++;
      polling.nudge();
    });
    try {
      polling.start();
      await expect(
        db.transaction(async () => {
          await outbox.add({ accountId: 7 }, 'evtest.f.rolledback', {});
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(nudges).toBe(0);

      const event = await commitEvent('evtest.f.created');
      expect(nudges).toBe(1);
      await waitUntil('the nudged relay has published', () => seen.includes(event.id));
      expect(seen).toEqual([event.id]);
    } finally {
      off();
      await polling.stop();
    }
  });

  it('keeps polling after quiet polls have stretched its wait: an event no nudge announced (another replica\'s, killed after its commit) is published', async () => {
    const seen = await recordDeliveries('f_idle', ['evtest.f2.*']);
    const idle = new OutboxRelay(db, log, logger, { intervalMs: 20, idleIntervalMs: 200 });
    relays.push(idle);
    idle.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 600)); // quiet polls: the wait is at its longest
      const event = await commitEvent('evtest.f2.unannounced'); // this relay is not told
      await waitUntil('the polling relay has published', () => seen.includes(event.id));
    } finally {
      await idle.stop();
    }
  });

  it('deletes published outbox rows past the retention and inbox records past twice that, past one batch, and keeps the rest', async () => {
    const [oldRow, freshRow] = [randomUUID(), randomUUID()];
    await db.manager.query(
      `INSERT INTO ${SCHEMA}.outbox (id, type, account_id, payload, created_at, published_at) VALUES
         ($1, 'evtest.purge.old', 1, '{}', now() - interval '9 days', now() - interval '9 days'),
         ($2, 'evtest.purge.fresh', 1, '{}', now() - interval '1 day', now() - interval '1 day')`,
      [oldRow, freshRow],
    );
    // More old records than one statement deletes (PURGE_BATCH), and one younger than twice the retention.
    await db.manager.query(`INSERT INTO ${SCHEMA}.inbox (consumer, event_id, processed_at) SELECT 'purge-test', gen_random_uuid(), now() - interval '15 days' FROM generate_series(1, 12001)`);
    await db.manager.query(`INSERT INTO ${SCHEMA}.inbox (consumer, event_id, processed_at) VALUES ('purge-test', $1, now() - interval '13 days')`, [freshRow]);
    const purging = new OutboxRelay(db, log, logger, { retentionMs: 7 * 24 * 3_600_000 });
    relays.push(purging);
    purging.start();
    try {
      await waitUntil('the old inbox records are gone', async () => (await countRows(`SELECT count(*)::int AS n FROM ${SCHEMA}.inbox WHERE consumer = 'purge-test'`, [])) === 1);
      expect(await db.manager.query(`SELECT event_id FROM ${SCHEMA}.inbox WHERE consumer = 'purge-test'`)).toEqual([{ event_id: freshRow }]);
      expect(await db.manager.query(`SELECT id FROM ${SCHEMA}.outbox WHERE id = ANY($1::uuid[])`, [[oldRow, freshRow]])).toEqual([{ id: freshRow }]);
    } finally {
      await purging.stop();
    }
  });

  it('reports its backlog on /metrics while it cannot publish: the events waiting and the age of the oldest', async () => {
    await relay.runOnce();
    const busAway: EventLog = {
      ...bind(log),
      publish: async () => {
        throw new Error('bus away');
      },
    };
    const stuck = new OutboxRelay(db, busAway, logger, { intervalMs: 50 });
    stuck.start();
    try {
      await commitEvent('evtest.q.backlog', 'b1');
      await commitEvent('evtest.q.backlog', 'b2');
      await waitUntil('the backlog shows both events', async () => (await outboxBacklogMetric(SCHEMA)).unpublished === 2);
      expect((await outboxBacklogMetric(SCHEMA)).oldestSeconds).toBeGreaterThan(0);
    } finally {
      await stuck.stop();
    }
    // A stopped relay no longer reports; the running one publishes what waited.
    expect((await outboxBacklogMetric(SCHEMA)).unpublished).toBeUndefined();
    expect(await relay.runOnce()).toBe(2);
    expect(await relay.backlog()).toEqual({ unpublished: 0, oldestSeconds: 0 });
  });

  /** The log as a relay sees it, recording what it publishes; `hold` keeps the next publish waiting until released. */
  function recordingLog() {
    const published: string[] = [];
    let held: Promise<void> | undefined;
    let release = (): void => undefined;
    const recorder: EventLog = {
      ...bind(log),
      publish: async (e) => {
        published.push(e.id);
        const wait = held;
        held = undefined;
        await wait;
        return log.publish(e);
      },
    };
    const hold = () => {
      held = new Promise<void>((resolve) => (release = resolve));
      return () => release();
    };
    return { recorder, published, hold };
  }

  it('publishes with one relay of a schema at a time, so replicas side by side keep the commit order and publish each row once', async () => {
    await relay.runOnce();
    const { recorder, published, hold } = recordingLog();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await commitEvent('evtest.g.created', `g${i}`)).id);

    // One replica's relay claims the three and stalls on the first publish.
    const release = hold();
    const first = new OutboxRelay(db, recorder, logger, { batchSize: 4 }).runOnce();
    await waitUntil('the first relay publishes', () => published.length === 1);
    for (let i = 3; i < 5; i++) ids.push((await commitEvent('evtest.g.created', `g${i}`)).id);

    // The other replica's relay must not publish the later events ahead of the stalled ones.
    const second = new OutboxRelay(db, recorder, logger, { batchSize: 4 });
    expect(await second.runOnce()).toBe(0);
    expect(published).toHaveLength(1);

    release();
    expect(await first).toBe(3);
    expect(await second.runOnce()).toBe(2);
    expect(published).toEqual(ids);
  });

  it('publishes soon a nudged relay\'s events that waited for another replica\'s relay, not at its next poll', async () => {
    await relay.runOnce();
    const { recorder, published, hold } = recordingLog();
    const before = (await commitEvent('evtest.g2.created', 'h0')).id;
    const release = hold();
    const first = new OutboxRelay(db, recorder, logger).runOnce();
    await waitUntil('the first relay publishes', () => published.length === 1);

    // A replica whose own request committed an event; its poll is an hour away.
    const second = new OutboxRelay(db, recorder, logger, { intervalMs: 3_600_000 });
    relays.push(second);
    second.start();
    const after = (await commitEvent('evtest.g2.created', 'h1')).id;
    second.nudge();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(published).toEqual([before]);

    release();
    expect(await first).toBe(1);
    await waitUntil('the nudged relay publishes its event', () => published.includes(after), 2_000);
    expect(published).toEqual([before, after]);
  });

  it('resumes a durable consumer where it stopped, and delivers several types to one consumer', async () => {
    const first: string[] = [];
    const sub = await log.consume(options('i_resume', ['evtest.i.one', 'evtest.i.two']), async (e) => {
      first.push(e.type);
    });
    const one = await commitEvent('evtest.i.one');
    await relay.runOnce();
    await waitUntil('the first event is delivered', () => first.length === 1);
    await sub.unsubscribe();

    await commitEvent('evtest.i.three'); // not subscribed
    const two = await commitEvent('evtest.i.two');
    expect(await relay.runOnce()).toBe(2);

    const resumed: string[] = [];
    subscriptions.push(
      await log.consume(options('i_resume', ['evtest.i.one', 'evtest.i.two']), async (e) => {
        resumed.push(e.id);
      }),
    );
    const barrier = await commitEvent('evtest.i.one');
    await relay.runOnce();
    await waitUntil('the barrier is delivered', () => resumed.includes(barrier.id));
    expect(first).toEqual(['evtest.i.one']);
    expect(resumed).toEqual([two.id, barrier.id]);
    expect(resumed).not.toContain(one.id);
  });

  it('splits events between subscriptions sharing a durable, each event to one of them', async () => {
    const handled: string[] = [];
    for (let i = 0; i < 2; i++) {
      subscriptions.push(
        await log.consume(options('j_shared', ['evtest.j.created']), async (e) => {
          handled.push(e.id);
        }),
      );
    }
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await commitEvent('evtest.j.created', `j${i}`)).id);
    expect(await relay.runOnce()).toBe(10);

    await waitUntil('all ten are handled', () => handled.length >= 10);
    expect([...handled].sort()).toEqual([...ids].sort());
  });

  it('lets the handler in progress finish when unsubscribing', async () => {
    let started = false;
    let finished = false;
    const sub = await log.consume(options('k_slow', ['evtest.k.created']), async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 200));
      finished = true;
    });
    await commitEvent('evtest.k.created');
    await relay.runOnce();
    await waitUntil('the handler started', () => started);

    await sub.unsubscribe();
    expect(finished).toBe(true);
  });

  it('drops a second publish of the same event id and delivers it once', async () => {
    const seen = await recordDeliveries('m_dedup', ['evtest.m.>']);
    const first = cloudEvent('evtest.m.happened', { n: 1 });
    expect(await log.publish(first)).toEqual({ duplicate: false });
    expect(await log.publish({ ...first, data: { n: 2 } })).toEqual({ duplicate: true });
    const barrier = cloudEvent('evtest.m.barrier');
    await log.publish(barrier);

    await waitUntil('the barrier is delivered', () => seen.includes(barrier.id));
    expect(seen).toEqual([first.id, barrier.id]);
  });

  it('delivers only the types a consumer asked for, with * and > wildcards, and starts a new durable at the beginning', async () => {
    const types = ['evtest.n.course.published', 'evtest.n.course.published.v2', 'evtest.n.enrollment.completed', 'evtest.other.deleted'];
    const published: CloudEvent[] = [];
    for (const type of types) {
      published.push(cloudEvent(type));
      await log.publish(published[published.length - 1]);
    }
    // Both durables are created after the events were published.
    const byStar = await recordDeliveries('n_star', ['evtest.n.course.*']);
    const byTail = await recordDeliveries('n_tail', ['evtest.n.>']);

    await waitUntil('the > consumer has its three events', () => byTail.length === 3);
    await waitUntil('the * consumer has its event', () => byStar.length === 1);
    expect(byTail).toEqual(published.slice(0, 3).map((e) => e.id));
    expect(byStar).toEqual([published[0].id]);
  });

  it('waits the back-off between deliveries of a failing event', async () => {
    const at: number[] = [];
    subscriptions.push(
      await log.consume(options('o_backoff', ['evtest.o.created'], { maxDeliver: 3, backoffMs: [400, 800] }), async () => {
        at.push(Date.now());
        throw new Error('not yet');
      }),
    );
    await log.publish(cloudEvent('evtest.o.created'));
    await waitUntil('the event is dead-lettered', async () => (await log.deadLetters('o_backoff')).length === 1);
    expect(at).toHaveLength(3);
    // Lower bounds only: a loaded machine may be late, never early (timer granularity aside).
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(350);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(750);
  });

  it('leaves a delivery whose handler lost its lease to the log: neither acknowledged nor retried, it comes again after the lease', async () => {
    const at: { deliveryCount: number; at: number }[] = [];
    subscriptions.push(
      await log.consume(options('lease', ['evtest.lease.created'], { maxDeliver: 3, backoffMs: [8_000], ackWaitMs: 1_000 }), async (_e, info) => {
        at.push({ deliveryCount: info.deliveryCount, at: Date.now() });
        if (info.deliveryCount === 1) throw new LeaseLost('a later delivery owns this work');
      }),
    );
    await log.publish(cloudEvent('evtest.lease.created'));
    await waitUntil('the event is delivered again', () => at.length === 2, 8_000);
    // Not acknowledged: it came again. Not retried: it came after the lease (1 s), not after the back-off (8 s).
    expect(at[1].deliveryCount).toBe(2);
    expect(at[1].at - at[0].at).toBeGreaterThanOrEqual(900);
    expect(at[1].at - at[0].at).toBeLessThan(6_000);
    expect(await log.deadLetters('lease')).toEqual([]);
  });

  // Only a foreign publisher on the NATS server can write one; the Postgres log's only writer is `publish`.
  (kind === 'JetStream' ? it : it.skip)('dead-letters a malformed message at once', async () => {
    const seen = await recordDeliveries('h_strict', ['evtest.h.*']);
    await harness.publishRaw!('evtest.h.raw', JSON.stringify({ hello: 'world' }));

    await waitUntil('the malformed message is dead-lettered', async () => (await log.deadLetters('h_strict')).length === 1);
    const [letter] = await log.deadLetters('h_strict');
    expect(letter).toEqual({ durable: 'h_strict', event: { hello: 'world' }, error: 'malformed event: missing id', deliveries: 1 });
    expect(seen).toEqual([]);
  });

  // Before NATS 2.10 a consumer has one filter subject: the narrowest that covers its types, not every event.
  (kind === 'JetStream' ? it : it.skip)('hands a consumer of several types only what its filter covers, and skips the rest of it undecoded', async () => {
    const jsLog = log as JetStreamEventLog;
    const seen = await recordDeliveries('q_several', ['evtest.q.course.created', 'evtest.q.task.created']);
    const wanted = [cloudEvent('evtest.q.course.created'), cloudEvent('evtest.q.task.created')];
    await log.publish(wanted[0]);
    await harness.publishRaw!('evtest.q.program.created', 'covered on an older server, not wanted, never decoded');
    await log.publish(cloudEvent('evtest.q.course.deleted')); // outside the filter on every server
    await log.publish(wanted[1]);

    await waitUntil('both wanted events are handled', () => seen.length === 2);
    expect(seen).toEqual(wanted.map((e) => e.id));
    const nc = await connect({ servers: natsUrl });
    try {
      const { config, delivered } = await (await jetstreamManager(nc)).consumers.info(jsLog.eventsStream, 'q_several');
      const subject = (type: string) => `${jsLog.namespace}.events.${type}`;
      if (config.filter_subjects?.length) {
        expect(config.filter_subjects).toEqual([subject('evtest.q.course.created'), subject('evtest.q.task.created')]);
        expect(delivered.consumer_seq).toBe(2);
      } else {
        expect(config.filter_subject).toBe(subject('evtest.q.*.created'));
        expect(delivered.consumer_seq).toBe(3);
      }
    } finally {
      await nc.close();
    }
    expect(await log.deadLetters('q_several')).toEqual([]);
  });

  // The log reads the stream's acknowledgement itself (ReplyInbox): a refusal must come back as the client would throw it.
  (kind === 'JetStream' ? it : it.skip)('fails a publish the stream refuses with the stream\'s error, at once, and publishes again once it accepts', async () => {
    const jsLog = log as JetStreamEventLog;
    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      const { config } = await jsm.streams.info(jsLog.eventsStream);
      await jsm.streams.update(jsLog.eventsStream, { ...config, max_msg_size: 64 });
      const started = Date.now();
      const refused = await log.publish(cloudEvent('evtest.s.too_big', { text: 'x'.repeat(100) })).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(JetStreamApiError);
      expect((refused as JetStreamApiError).message).toMatch(/size/i);
      expect(Date.now() - started).toBeLessThan(2_000); // not the acknowledgement's 5 s timeout
      await jsm.streams.update(jsLog.eventsStream, { ...config, max_msg_size: -1 });
    } finally {
      await nc.close();
    }
    const seen = await recordDeliveries('s_after', ['evtest.s.>']);
    const accepted = cloudEvent('evtest.s.fits');
    expect(await log.publish(accepted)).toEqual({ duplicate: false });
    await waitUntil('the accepted event is handled', () => seen.length === 1);
    expect(seen).toEqual([accepted.id]);
  });

  // An earlier version made both streams with no max_age: they kept every event forever.
  (kind === 'JetStream' ? it : it.skip)('keeps events as long as inbox records and dead letters 90 days, and sets both on streams made without them', async () => {
    const jsLog = log as JetStreamEventLog;
    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      const streams = [jsLog.eventsStream, jsLog.deadLetterStream];
      const ages = async () => Promise.all(streams.map(async (stream) => (await jsm.streams.info(stream)).config.max_age / 86_400e9));
      expect(await ages()).toEqual([14, 90]);
      for (const stream of streams) await jsm.streams.update(stream, { ...(await jsm.streams.info(stream)).config, max_age: 0 });
      expect(await ages()).toEqual([0, 0]);
      await harness.open(); // the next process to start
      expect(await ages()).toEqual([14, 90]);
    } finally {
      await nc.close();
    }
  });

  (kind === 'Postgres' ? it : it.skip)('deletes dead letters 90 days after they died', async () => {
    const durable = 'dl_aged';
    subscriptions.push(await log.consume(options(durable, ['evtest.dl.*'], { maxDeliver: 1 }), async () => Promise.reject(new Error('never handled'))));
    await log.publish(cloudEvent('evtest.dl.bad'));
    await waitUntil('the event is dead-lettered', async () => (await log.deadLetters(durable)).length === 1);
    const pgLog = log as PostgresEventLog;
    await pgLog.purge(new Date(Date.now() + 89 * 86_400_000));
    expect(await log.deadLetters(durable)).toHaveLength(1);
    await pgLog.purge(new Date(Date.now() + 91 * 86_400_000));
    expect(await log.deadLetters(durable)).toEqual([]);
  });

  // An earlier version made such a consumer with `events.>`; the next start narrows it in place.
  (kind === 'JetStream' ? it : it.skip)('narrows the filter of a consumer an earlier version made over every event', async () => {
    const jsLog = log as JetStreamEventLog;
    const subject = (type: string) => `${jsLog.namespace}.events.${type}`;
    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.consumers.add(jsLog.eventsStream, { durable_name: 'r_upgraded', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.New, filter_subject: subject('>') });
      const seen = await recordDeliveries('r_upgraded', ['evtest.r.course.created', 'evtest.r.task.created']);
      const { config } = await jsm.consumers.info(jsLog.eventsStream, 'r_upgraded');
      expect(config.filter_subjects?.length ? config.filter_subjects : [config.filter_subject]).not.toContain(subject('>'));
      const wanted = cloudEvent('evtest.r.task.created');
      await log.publish(cloudEvent('evtest.r.course.deleted'));
      await log.publish(wanted);
      await waitUntil('the wanted event is handled', () => seen.length === 1);
      expect(seen).toEqual([wanted.id]);
    } finally {
      await nc.close();
    }
  });

  (kind === 'Postgres' ? it : it.skip)('publishes in the relay\'s transaction when the log shares its database: nothing of a rollback', async () => {
    const pgLog = log as PostgresEventLog;
    expect(pgLog.isDatabase(testDb.url)).toBe(true);
    const seen = await recordDeliveries('t_within', ['evtest.t.*']);
    const lost = cloudEvent('evtest.t.rolledback');
    await expect(
      db.transaction(async (manager) => {
        expect(await pgLog.publishWithin((sql, params) => manager.query(sql, params), [lost])).toEqual([{ duplicate: false }]);
        throw new Error('relay died before its commit');
      }),
    ).rejects.toThrow('relay died');
    const kept = cloudEvent('evtest.t.committed');
    await db.transaction((manager) => pgLog.publishWithin((sql, params) => manager.query(sql, params), [kept]));
    await waitUntil('the committed event is delivered', () => seen.includes(kept.id));
    expect(seen).toEqual([kept.id]);
    expect(await log.publish(lost)).toEqual({ duplicate: false }); // the log never had it
  });

  describe('across a restart of the log\'s process', () => {
    it('resumes each durable where it stopped and keeps its dead letters', async () => {
      const before = await harness.open();
      const first: string[] = [];
      const sub = await before.consume(options('p_resume', ['evtest.p.created']), async (e) => {
        first.push(e.id);
      });
      await before.consume(options('p_dead', ['evtest.pd.created'], { maxDeliver: 1 }), async () => {
        throw new Error('always fails');
      });
      const one = cloudEvent('evtest.p.created');
      const poison = cloudEvent('evtest.pd.created');
      await before.publish(one);
      await before.publish(poison);
      await waitUntil('the first event is handled and dead-lettered', async () => first.length === 1 && (await before.deadLetters('p_dead')).length === 1);
      await sub.unsubscribe();
      const two = cloudEvent('evtest.p.created');
      await before.publish(two);
      await harness.crash(before);

      const after = await harness.open();
      expect(await after.deadLetters('p_dead')).toEqual([{ durable: 'p_dead', event: poison, error: 'always fails', deliveries: 1 }]);
      const resumed: string[] = [];
      subscriptions.push(
        await after.consume(options('p_resume', ['evtest.p.created']), async (e) => {
          resumed.push(e.id);
        }),
      );
      const barrier = cloudEvent('evtest.p.created');
      await after.publish(barrier);
      await waitUntil('the barrier is delivered', () => resumed.includes(barrier.id));
      expect(first).toEqual([one.id]);
      expect(resumed).toEqual([two.id, barrier.id]);
    });

    it('delivers again an event whose handler died with its process (at the latest after the ack wait)', async () => {
      const durable = 'q_crash';
      const opts = options(durable, ['evtest.q.created'], { ackWaitMs: 1_000 });
      const before = await harness.open();
      let release: () => void = () => undefined;
      let taken = 0;
      await before.consume(opts, async () => {
        taken++;
        await new Promise<void>((resolve) => (release = resolve));
      });
      const event = cloudEvent('evtest.q.created');
      await before.publish(event);
      await waitUntil('the first process took the event', () => taken === 1);
      await harness.crash(before);
      release(); // the dead process's acknowledgement goes nowhere

      const after = await harness.open();
      const redelivered: DeliveryInfo[] = [];
      subscriptions.push(
        await after.consume(opts, async (e, info) => {
          if (e.id === event.id) redelivered.push(info);
        }),
      );
      await waitUntil('the event is delivered again', () => redelivered.length === 1, 8_000);
      expect(redelivered).toEqual([{ deliveryCount: 2 }]);
    });

    it('dead-letters, without running the handler again, an event whose last delivery died with its process', async () => {
      const durable = 'l_crash';
      const opts = options(durable, ['evtest.l.created'], { maxDeliver: 1, ackWaitMs: 500 });
      const before = await harness.open();
      let taken = 0;
      let release: () => void = () => undefined;
      await before.consume(opts, async () => {
        taken++;
        await new Promise<void>((resolve) => (release = resolve)); // no answer before its process dies
      });
      const event = cloudEvent('evtest.l.created');
      await before.publish(event);
      await waitUntil('the first process took the event', () => taken === 1);
      await harness.crash(before);
      release(); // the dead process's acknowledgement goes nowhere

      const after = await harness.open();
      let calls = 0;
      subscriptions.push(
        await after.consume(opts, async () => {
          calls++;
        }),
      );
      await waitUntil('the unacknowledged event is dead-lettered', async () => (await after.deadLetters(durable)).length === 1, 8_000);
      const [letter] = await after.deadLetters(durable);
      expect(letter).toMatchObject({ durable, event: { id: event.id }, deliveries: 2 });
      expect(letter.error).toContain('not acknowledged');
      expect(calls).toBe(0);
    });

    it('keeps a retry waiting for its back-off', async () => {
      const durable = 's_retry';
      const opts = options(durable, ['evtest.s.created'], { maxDeliver: 3, backoffMs: [1_000] });
      const before = await harness.open();
      let failedAt = 0;
      await before.consume(opts, async () => {
        failedAt = Date.now();
        throw new Error('fails once');
      });
      await before.publish(cloudEvent('evtest.s.created'));
      await waitUntil('the first delivery failed', () => failedAt > 0);
      await harness.crash(before);

      const after = await harness.open();
      const retried: { deliveryCount: number; at: number }[] = [];
      subscriptions.push(
        await after.consume(opts, async (_e, info) => {
          retried.push({ deliveryCount: info.deliveryCount, at: Date.now() });
        }),
      );
      await waitUntil('the retry is delivered', () => retried.length === 1, 8_000);
      expect(retried[0].deliveryCount).toBe(2);
      expect(retried[0].at - failedAt).toBeGreaterThanOrEqual(900);
    });
  });
});

/** The log's methods bound to it, to build wrappers that override one of them. */
function bind(log: EventLog): EventLog {
  return {
    ensureStreams: () => log.ensureStreams(),
    publish: (e) => log.publish(e),
    consume: (o, h) => log.consume(o, h),
    deadLetters: (d) => log.deadLetters(d),
  };
}
