import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';
import { createRequire } from 'node:module';
import type { CloudEvent } from '@lms/contracts';
import type pg from 'pg';
import { type ConsumerOptions, type DeadLetter, type DeliveryInfo, type EventLog, LeaseLost, type Subscription } from '../messaging/message-bus.js';
import { subjectMatcher } from '../messaging/subject-match.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { decodeCloudEvent } from './cloud-event.js';
import { assertConsumerOptions, DEAD_LETTER_RETENTION_MS, DEFAULT_ACK_WAIT_MS, errorMessage, EVENT_RETENTION_MS, retryDelayMs } from './delivery-policy.js';

type Handler = (event: CloudEvent, info: DeliveryInfo) => Promise<void>;

// Loaded when a log is made, not with the module: `@lms/platform` exports this class to every deployable,
// and one without a database (the gateway) never needs pg.
const pgModule = () => createRequire(import.meta.url)('pg') as typeof pg;

/** Longest an idle subscription sleeps without a wake-up: a safety net for a lost notification, not the path events take. */
const IDLE_RECHECK_MS = 5_000;
/** Pause after a failed database call (Postgres restarting) before a subscription tries again. */
const RETRY_DELAY_MS = 1_000;
/** Events older than this with nothing left to deliver are deleted (checked at most once an hour). */
const HOUR_MS = 3_600_000;
/**
 * First key of the advisory lock each log instance holds while it lives (the second is its instance key):
 * a claim whose instance no longer holds it died with its process, and is delivered again at once.
 */
const LIVENESS_LOCK = 0x4c4d5345;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `event_log`, or `event_log_<namespace>` so systems sharing a database keep apart, like NATS namespaces. */
export const eventLogSchema = (namespace: string) =>
  (namespace ? `event_log_${namespace.toLowerCase().replace(/[^a-z0-9_]/g, '_')}` : 'event_log').slice(0, 63);

/** NATS token patterns as one anchored Postgres regex: `*` one token, a trailing `>` one or more. */
export function typesPattern(types: string[]): string {
  const one = (type: string) =>
    type
      .split('.')
      .map((t) => (t === '*' ? '[^.]+' : t === '>' ? '.+' : t.replace(/[^A-Za-z0-9_]/g, (c) => `\\${c}`)))
      .join('\\.');
  return `^(${types.map(one).join('|')})$`;
}

/** Runs one statement on the caller's connection, in its transaction; resolves with the rows. */
export type TransactionQuery = (sql: string, params: unknown[]) => Promise<unknown[]>;

interface Claimed {
  seq: string;
  deliveries: number;
  payload: string;
}

/** One subscription's loop: it handles one event at a time, like a JetStream pull loop. */
interface Member {
  durable: string;
  /** Set by a wake-up; cleared before each claim, so a wake-up between a claim and the sleep is not lost. */
  signalled: boolean;
  wake: () => void;
}

export interface PostgresEventLogOptions {
  url: string;
  namespace?: string;
  logger?: Logger;
  poolSize?: number;
}

/**
 * The event log of the embedded default (no NATS_URL), in Postgres, with JetStream's semantics (decision
 * "Events in embedded mode"): events in `events` (de-duplicated on their id), one row in `deliveries` per
 * event a durable consumer still has to handle (its position, its delivery count, when it is next due),
 * dead letters in `dead_letters`. Everything is committed before a call returns, so a crash loses nothing.
 *
 * Publishing fans an event out to the deliveries of every durable whose types match, and notifies them
 * (`LISTEN/NOTIFY`); a subscription claims the oldest due delivery with `FOR UPDATE SKIP LOCKED`, so
 * replicas of one durable split the events. A claim is a lease of `ackWaitMs`: a handler that dies with
 * its process leaves the delivery to be claimed again when the lease runs out, as JetStream's ack wait, or
 * at once when Postgres shows that process gone (its session's liveness lock released).
 */
export class PostgresEventLog implements EventLog {
  readonly schema: string;
  private readonly url: string;
  private readonly pool: pg.Pool;
  private readonly logger: Logger;
  /** NOTIFY channel: one per log schema. */
  private readonly channel: string;
  private readonly members = new Set<Member>();
  private listener?: pg.Client;
  private listening?: Promise<void>;
  private ready?: Promise<void>;
  private closed = false;
  private lastPurge = 0;
  /** This instance, in its claims; alive while its listener connection holds the liveness lock. */
  private readonly instance = randomInt(1, 2 ** 31 - 1);
  /** Handlers run in the context the log was made in, so they never join a caller's transaction. */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(options: PostgresEventLogOptions) {
    this.url = options.url;
    this.schema = eventLogSchema(options.namespace ?? '');
    this.channel = this.schema;
    this.logger = options.logger ?? createLogger('silent');
    // Claims, acknowledgements and retry times commit without waiting for the WAL flush: one lost in a crash
    // of Postgres means a redelivery, which the consumers' inboxes absorb. What must not be lost (published
    // events, dead letters) commits synchronously (`inTransaction`, and the relay's own transaction).
    this.pool = new (pgModule().Pool)({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      application_name: 'lms-event-log',
      options: '-c synchronous_commit=off',
    });
    // An idle client that loses its server (Postgres restarting) must not crash the process. Once closing, a
    // connection still saying goodbye when the embedded server stops is no news.
    this.pool.on('error', (err) => {
      if (!this.closed) this.logger.warn({ err }, 'event log connection lost');
    });
  }

  private table(name: 'events' | 'consumers' | 'deliveries' | 'dead_letters'): string {
    return `${quoteIdent(this.schema)}.${name}`;
  }

  /** Key of the lock that orders publishing (shared) against creating a durable (exclusive). */
  private get lockKey(): string {
    return `event-log:${this.schema}`;
  }

  /** Creates the log's tables if they are missing. Idempotent and memoised; a failed attempt is retried by the next call. */
  ensureStreams(): Promise<void> {
    this.ready ??= this.createTables().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  private async createTables(): Promise<void> {
    await this.inTransaction(async (client) => {
      // Replicas starting together must not race on CREATE.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.lockKey}:schema`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema)}`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.table('events')} (
          seq bigserial PRIMARY KEY,
          id text NOT NULL UNIQUE,
          type text NOT NULL,
          payload text NOT NULL,
          published_at timestamptz NOT NULL DEFAULT now()
        )`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.table('consumers')} (
          durable text PRIMARY KEY,
          types text[] NOT NULL,
          type_pattern text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.table('deliveries')} (
          durable text NOT NULL REFERENCES ${this.table('consumers')} ON DELETE CASCADE,
          seq bigint NOT NULL REFERENCES ${this.table('events')},
          deliveries integer NOT NULL DEFAULT 0,
          due_at timestamptz NOT NULL DEFAULT now(),
          claimed_by bigint NULL,
          PRIMARY KEY (durable, seq)
        )`);
      await client.query(`CREATE INDEX IF NOT EXISTS deliveries_seq_idx ON ${this.table('deliveries')} (seq)`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.table('dead_letters')} (
          durable text NOT NULL,
          seq bigint NOT NULL,
          event text NOT NULL,
          error text NOT NULL,
          deliveries integer NOT NULL,
          dead_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (durable, seq)
        )`);
    });
  }

  async publish(event: CloudEvent): Promise<{ duplicate: boolean }> {
    const [result] = await this.inTransaction((client) => this.publishWithin(async (sql, params) => (await client.query(sql, params)).rows, [event]));
    return result;
  }

  /** True when `url` names this log's database: a transaction there can publish with `publishWithin`. */
  isDatabase(url: string): boolean {
    const key = (u: string) => {
      const parsed = new URL(u);
      return `${parsed.username}@${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
    };
    try {
      return key(url) === key(this.url);
    } catch {
      return false;
    }
  }

  /**
   * Publishes `events` in the caller's open transaction on this log's database: they are in the log if and
   * only if that transaction commits, so the outbox relay marks its rows in the same commit. Fans each new
   * event out to the durables whose types match and notifies them at commit.
   */
  async publishWithin(query: TransactionQuery, events: CloudEvent[]): Promise<{ duplicate: boolean }[]> {
    await this.ensureStreams();
    // Shared: publishers run side by side; a durable being created (exclusive) sees each event in the log or fans it in.
    await query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [this.lockKey]);
    const [{ inserted, durables }] = (await query(
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(id, type, payload, ord)
       ), e AS (
         INSERT INTO ${this.table('events')} (id, type, payload) SELECT id, type, payload FROM input ORDER BY ord
         ON CONFLICT (id) DO NOTHING RETURNING seq, id, type
       ), d AS (
         INSERT INTO ${this.table('deliveries')} (durable, seq)
         SELECT c.durable, e.seq FROM e JOIN ${this.table('consumers')} c ON e.type ~ c.type_pattern
         RETURNING durable
       )
       SELECT (SELECT array_agg(id) FROM e) AS inserted, (SELECT array_agg(DISTINCT durable) FROM d) AS durables`,
      [events.map((e) => e.id), events.map((e) => e.type), events.map((e) => JSON.stringify(e))],
    )) as { inserted: string[] | null; durables: string[] | null }[];
    // Delivered at commit, to every process listening, this one included.
    if (durables?.length) await query('SELECT pg_notify($1, d) FROM unnest($2::text[]) AS d', [this.channel, durables]);
    const fresh = new Set(inserted ?? []);
    return events.map((e) => ({ duplicate: !fresh.has(e.id) }));
  }

  async consume(options: ConsumerOptions, handler: Handler): Promise<Subscription> {
    assertConsumerOptions(options);
    await this.ensureStreams();
    await this.listen();
    await this.upsertConsumer(options);
    const wants = subjectMatcher(options.types);

    let stopping = false;
    let sleeping: (() => void) | undefined;
    const member: Member = {
      durable: options.durable,
      signalled: true,
      wake: () => {
        member.signalled = true;
        sleeping?.();
      },
    };
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        timer.unref();
        function done() {
          clearTimeout(timer);
          sleeping = undefined;
          resolve();
        }
        sleeping = done;
      });
    this.members.add(member);

    const loop = this.detached(async () => {
      while (!stopping && !this.closed) {
        let waitMs: number;
        try {
          member.signalled = false;
          const claimed = await this.claim(options);
          if (claimed) {
            await this.handle(claimed, options, wants, handler);
            continue;
          }
          waitMs = await this.nextDueInMs(options.durable);
        } catch (err) {
          if (stopping || this.closed) break;
          this.logger.warn({ err, durable: options.durable }, 'event consumer failed; retrying');
          waitMs = RETRY_DELAY_MS;
        }
        if (!member.signalled && !stopping) await sleep(waitMs);
      }
    });

    return {
      unsubscribe: async () => {
        stopping = true;
        member.wake();
        await loop; // the handler in progress finishes and acknowledges first
        this.members.delete(member);
      },
    };
  }

  async deadLetters(durable: string): Promise<DeadLetter[]> {
    await this.ensureStreams();
    const { rows } = await this.pool.query<{ event: string; error: string; deliveries: number }>(
      `SELECT event, error, deliveries FROM ${this.table('dead_letters')} WHERE durable = $1 ORDER BY dead_at, seq`,
      [durable],
    );
    return rows.map((row) => ({ durable, event: parsePayload(row.event), error: row.error, deliveries: row.deliveries }));
  }

  /** Stops every subscription at its next step and disconnects; events not acknowledged wait in Postgres for the next start. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const member of this.members) member.wake();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  /** Creates the durable (starting at the beginning of the log, like JetStream's deliver policy `all`), or updates its types. */
  private async upsertConsumer(options: ConsumerOptions): Promise<void> {
    const pattern = typesPattern(options.types);
    const existing = await this.pool.query<{ type_pattern: string }>(`SELECT type_pattern FROM ${this.table('consumers')} WHERE durable = $1`, [
      options.durable,
    ]);
    if (existing.rows[0]?.type_pattern === pattern) return;
    await this.inTransaction(async (client) => {
      // Exclusive: no publish is half-way while the new durable takes every event so far.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.lockKey]);
      const created = await client.query(
        `INSERT INTO ${this.table('consumers')} (durable, types, type_pattern) VALUES ($1, $2, $3)
         ON CONFLICT (durable) DO UPDATE SET types = excluded.types, type_pattern = excluded.type_pattern
         RETURNING (xmax = 0) AS created`,
        [options.durable, options.types, pattern],
      );
      if (!(created.rows[0] as { created: boolean }).created) return; // new types apply from the next event on, as a JetStream filter update
      await client.query(
        `INSERT INTO ${this.table('deliveries')} (durable, seq) SELECT $1, seq FROM ${this.table('events')} WHERE type ~ $2 ON CONFLICT DO NOTHING`,
        [options.durable, pattern],
      );
    });
  }

  /** Takes the oldest due delivery of the durable (or one whose claimant died) for `ackWaitMs`, counting the delivery. */
  private async claim(options: ConsumerOptions): Promise<Claimed | undefined> {
    const { rows } = await this.pool.query<Claimed>(
      `WITH live AS MATERIALIZED (
         SELECT objid::bigint AS instance FROM pg_locks
         WHERE locktype = 'advisory' AND classid = $4::bigint::oid AND objsubid = 2 AND granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       )
       UPDATE ${this.table('deliveries')} d
       SET deliveries = d.deliveries + 1, due_at = now() + $2 * interval '1 millisecond', claimed_by = $3
       FROM (
         SELECT durable, seq FROM ${this.table('deliveries')}
         WHERE durable = $1 AND (due_at <= now() OR (claimed_by IS NOT NULL AND claimed_by NOT IN (SELECT instance FROM live)))
         ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
       ) n, ${this.table('events')} e
       WHERE d.durable = n.durable AND d.seq = n.seq AND e.seq = d.seq
       RETURNING d.seq, d.deliveries, e.payload`,
      [options.durable, options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS, this.instance, LIVENESS_LOCK],
    );
    this.maybePurge();
    return rows[0];
  }

  /** How long until the durable's next delivery is due (a retry's back-off, a lease running out), capped. */
  private async nextDueInMs(durable: string): Promise<number> {
    const { rows } = await this.pool.query<{ ms: number | null }>(
      `SELECT ceil(extract(epoch FROM min(due_at) - now()) * 1000)::int AS ms FROM ${this.table('deliveries')} WHERE durable = $1`,
      [durable],
    );
    const ms = rows[0]?.ms;
    return ms === null || ms === undefined ? IDLE_RECHECK_MS : Math.min(Math.max(ms, 0), IDLE_RECHECK_MS);
  }

  private async handle(claimed: Claimed, options: ConsumerOptions, wants: (type: string) => boolean, handler: Handler): Promise<void> {
    const deliveryCount = claimed.deliveries;
    const decoded = decodeCloudEvent(claimed.payload);
    if ('error' in decoded) {
      // Retrying cannot fix a malformed event: dead-letter it on first sight.
      await this.giveUp(claimed, options, `malformed event: ${decoded.error}`);
      return;
    }
    const { event } = decoded;
    if (!wants(event.type)) {
      await this.settle(claimed, options, 'ack'); // taken before the durable's types changed
      return;
    }
    if (deliveryCount > options.maxDeliver) {
      // The last try's handler died (or outlived its lease) without an answer: dead-letter it, as JetStream does.
      await this.giveUp(claimed, options, `not acknowledged after ${options.maxDeliver} deliveries (handler crashed or timed out)`);
      return;
    }
    const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    // A slow handler keeps its lease, so the event is not handed to another replica meanwhile.
    const keepAlive = setInterval(() => void this.settle(claimed, options, 'extend').catch(() => undefined), Math.max(ackWaitMs / 2, 100));
    let failure: { err: unknown } | undefined;
    try {
      await handler(event, { deliveryCount });
    } catch (err) {
      failure = { err };
    } finally {
      clearInterval(keepAlive);
    }
    if (!failure) {
      await this.settle(claimed, options, 'ack');
    } else if (failure.err instanceof LeaseLost) {
      this.logger.warn({ err: failure.err, durable: options.durable, eventId: event.id, type: event.type, deliveryCount }, 'event handler lost its lease; the later delivery settles the event');
    } else if (deliveryCount >= options.maxDeliver) {
      await this.giveUp(claimed, options, errorMessage(failure.err));
    } else {
      this.logger.warn({ err: failure.err, durable: options.durable, eventId: event.id, type: event.type, deliveryCount }, 'event handler failed; will retry');
      await this.settle(claimed, options, 'retry');
    }
  }

  /**
   * Acknowledges (deletes), schedules the retry of, or extends the lease of this claim. Each only applies
   * while the claim is still ours (same delivery count): a lease that ran out belongs to the next claimant.
   */
  private async settle(claimed: Claimed, options: ConsumerOptions, action: 'ack' | 'retry' | 'extend'): Promise<void> {
    const mine = [options.durable, claimed.seq, claimed.deliveries];
    if (action === 'ack') {
      await this.pool.query(`DELETE FROM ${this.table('deliveries')} WHERE durable = $1 AND seq = $2 AND deliveries = $3`, mine);
      return;
    }
    const delayMs = action === 'retry' ? retryDelayMs(options, claimed.deliveries) : (options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS);
    // A retry waiting for its back-off belongs to no one: it is not taken early for a dead claimant's.
    await this.pool.query(
      `UPDATE ${this.table('deliveries')} SET due_at = now() + $4 * interval '1 millisecond'${action === 'retry' ? ', claimed_by = NULL' : ''}
       WHERE durable = $1 AND seq = $2 AND deliveries = $3`,
      [...mine, delayMs],
    );
  }

  /** Moves the delivery to the dead letters in one statement, committed durably. */
  private async giveUp(claimed: Claimed, options: ConsumerOptions, error: string): Promise<void> {
    await this.inTransaction((client) => client.query(
      `WITH gone AS (
         DELETE FROM ${this.table('deliveries')} WHERE durable = $1 AND seq = $2 AND deliveries = $3 RETURNING seq
       )
       INSERT INTO ${this.table('dead_letters')} (durable, seq, event, error, deliveries)
       SELECT $1, seq, $4, $5, $3 FROM gone ON CONFLICT DO NOTHING`,
      [options.durable, claimed.seq, claimed.deliveries, claimed.payload, error],
    ));
    const eventId = (parsePayload(claimed.payload) as Partial<CloudEvent>).id;
    this.logger.error({ durable: options.durable, eventId, deliveries: claimed.deliveries, error }, 'event dead-lettered');
  }

  private wake(durable: string): void {
    for (const member of this.members) if (member.durable === durable) member.wake();
  }

  /**
   * One connection LISTENs for every subscription of this log and holds the instance's liveness lock; lost,
   * it reconnects and wakes them all.
   */
  private listen(): Promise<void> {
    this.listening ??= this.connectListener().catch((err: unknown) => {
      this.listening = undefined;
      throw err;
    });
    return this.listening;
  }

  private async connectListener(): Promise<void> {
    const client = new (pgModule().Client)({ connectionString: this.url, application_name: 'lms-event-log-listener' });
    client.on('notification', (msg) => {
      if (msg.channel === this.channel && msg.payload) this.wake(msg.payload);
    });
    let lost = false;
    const reconnect = (err?: Error) => {
      if (lost || this.closed || this.listener !== client) return;
      lost = true;
      this.logger.warn({ err }, 'event log listener lost; reconnecting');
      this.listener = undefined;
      this.listening = undefined;
      void client.end().catch(() => undefined);
      const retry = () => {
        if (this.closed) return;
        this.listen().then(
          () => {
            for (const member of this.members) member.wake(); // catch up on what was published meanwhile
          },
          () => setTimeout(retry, RETRY_DELAY_MS).unref(),
        );
      };
      setTimeout(retry, RETRY_DELAY_MS).unref();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    await client.connect();
    this.listener = client;
    await client.query('SELECT pg_advisory_lock($1, $2)', [LIVENESS_LOCK, this.instance]);
    await client.query(`LISTEN ${quoteIdent(this.channel)}`);
  }

  /**
   * Deletes events past the retention that no durable still has to handle, and dead letters past theirs; at
   * most once an hour, never in the way.
   */
  private maybePurge(): void {
    if (Date.now() - this.lastPurge < HOUR_MS) return;
    this.lastPurge = Date.now();
    void this.purge(new Date()).catch((err: unknown) => this.logger.warn({ err }, 'event log purge failed'));
  }

  /** The purge at `now` (a parameter, so a test drives the clock). */
  async purge(now: Date): Promise<void> {
    await this.pool.query(
      `DELETE FROM ${this.table('events')} e WHERE e.published_at < $1::timestamptz - $2 * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM ${this.table('deliveries')} d WHERE d.seq = e.seq)`,
      [now, EVENT_RETENTION_MS],
    );
    await this.pool.query(`DELETE FROM ${this.table('dead_letters')} WHERE dead_at < $1::timestamptz - $2 * interval '1 millisecond'`, [now, DEAD_LETTER_RETENTION_MS]);
  }

  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A checked-out client has no listener: a server going away between two statements would crash the process.
    const lost = (err: Error) => this.logger.warn({ err }, 'event log connection lost in a transaction');
    client.on('error', lost);
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL synchronous_commit = on');
      const result = await work(client);
      await client.query('COMMIT');
      client.off('error', lost);
      client.release();
      return result;
    } catch (err) {
      // A connection that cannot even roll back is dropped, not handed to the next caller.
      const broken = await client.query('ROLLBACK').then(
        () => undefined,
        (rollbackErr: unknown) => (rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr))),
      );
      client.off('error', lost);
      client.release(broken);
      throw err;
    }
  }
}

/** What a dead letter carried: the event, or the raw text when it was not JSON. */
function parsePayload(text: string): CloudEvent {
  try {
    return JSON.parse(text) as CloudEvent;
  } catch {
    return text as unknown as CloudEvent;
  }
}
