import { AsyncLocalStorage } from 'node:async_hooks';
import type { CloudEvent } from '@lms/contracts';
import type { EventLog } from '../messaging/message-bus.js';
import type { Logger } from '../observability/logger.js';
import { watchOutbox, type OutboxBacklog } from '../observability/outbox-metrics.js';
import { type Database, inBatches, prepare, type PreparedStatement, queryResult } from '../persistence/database.js';
import { EVENT_RETENTION_MS } from './delivery-policy.js';
import { eventTable } from './event-tables.js';
import { PostgresEventLog } from './postgres-event-log.js';

export interface OutboxRelayOptions {
  /** Poll interval after a run that published something (or failed). */
  intervalMs?: number;
  /**
   * The longest wait between polls: each poll that finds nothing doubles the wait, from `intervalMs` up to this.
   * A commit in this process nudges the relay at once whatever the wait; the poll is for what another
   * replica, killed after its commit, left behind.
   */
  idleIntervalMs?: number;
  /** Rows claimed per transaction. */
  batchSize?: number;
  /** Published rows older than this are deleted, and inbox records older than twice this (at most once an hour). */
  retentionMs?: number;
}

const HOUR_MS = 3_600_000;
/** Rows a purge deletes per statement. */
const PURGE_BATCH = 5_000;
/** How soon a relay that found another replica's relay publishing tries again: its own events may wait. */
const LOCKED_OUT_RETRY_MS = 50;

/** The wait before the next poll: `intervalMs`, doubled for each quiet poll in a row after the first, up to `idleIntervalMs`. */
export function relayPollDelay(intervalMs: number, idleIntervalMs: number, quietRuns: number): number {
  return Math.min(intervalMs * 2 ** Math.min(Math.max(quietRuns - 1, 0), 16), Math.max(idleIntervalMs, intervalMs));
}

/**
 * Publishes the outbox's committed events to the event log, oldest first, with the event id as
 * de-duplication id. One relay of a schema publishes at a time: each run holds a transaction-scoped
 * advisory lock, and a replica that finds it taken leaves the run to the holder. Replicas that shared the
 * rows (each claiming the ones the other had not locked) could publish an event ahead of an earlier one
 * still in flight elsewhere, such as a learner's leaving a group ahead of their joining it. A relay that
 * dies after publishing and before marking leaves the row to be published again, and the log drops the
 * duplicate (and consumers' inboxes would too). A Postgres event log in the service's own database takes
 * the batch in the relay's transaction instead: the events enter the log and their rows are marked in
 * one commit.
 */
export class OutboxRelay {
  private readonly intervalMs: number;
  private readonly idleIntervalMs: number;
  /** Polls in a row that found nothing to publish. */
  private quietRuns = 0;
  private readonly batchSize: number;
  private readonly retentionMs: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private started = false;
  private again = false;
  /** The last run found another replica's relay holding the lock. */
  private lockedOut = false;
  private lastPurge = 0;
  private purging?: Promise<void>;
  /** Runs ticks in the context the relay was made in, so a nudge from inside a transaction cannot make the relay join it. */
  private readonly detached = AsyncLocalStorage.snapshot();
  /** The log, when it lives in this database and can publish in the relay's transaction. */
  private readonly sameDatabaseLog?: PostgresEventLog;
  private unwatch?: () => void;
  /** The relay's statements, prepared once per connection. */
  private readonly lock: PreparedStatement;
  private readonly claim: PreparedStatement;
  private readonly mark: PreparedStatement;
  /** The advisory lock only one relay of this schema holds while it publishes. */
  private readonly lockKey: string;

  constructor(
    private readonly db: Database,
    private readonly events: EventLog,
    private readonly logger: Logger,
    options: OutboxRelayOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1_000;
    this.idleIntervalMs = options.idleIntervalMs ?? 5_000;
    this.batchSize = options.batchSize ?? 100;
    this.retentionMs = options.retentionMs ?? EVENT_RETENTION_MS;
    const url = (db.dataSource.options as { url?: string }).url;
    if (events instanceof PostgresEventLog && url && events.isDatabase(url)) this.sameDatabaseLog = events;
    const outbox = eventTable(db.schema, 'outbox');
    this.lockKey = `outbox-relay:${db.schema}`;
    this.lock = prepare('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS sole');
    // SKIP LOCKED stays for a replica of an earlier version, which shares rows without the lock, during a rolling update.
    this.claim = prepare(`SELECT id, payload FROM ${outbox} WHERE published_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`);
    this.mark = prepare(`UPDATE ${outbox} SET published_at = now() WHERE id = ANY($1::uuid[])`);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.unwatch = watchOutbox(this.db.schema, () => this.backlog());
    this.schedule(0);
  }

  /** Events committed and not yet published, and how old the oldest is (the outbox metrics). */
  async backlog(): Promise<OutboxBacklog> {
    const [row]: { unpublished: number; oldest_seconds: number }[] = await this.db.manager.query(
      `SELECT count(*)::int AS unpublished, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS oldest_seconds
         FROM ${eventTable(this.db.schema, 'outbox')} WHERE published_at IS NULL`,
    );
    return { unpublished: row.unpublished, oldestSeconds: row.oldest_seconds };
  }

  /**
   * Stops polling, waits for the batch in progress, then publishes what the outbox still holds (a shutdown
   * relays the events of the last requests instead of leaving them to the next start). A failure there is
   * logged: the rows stay, and the next relay publishes them.
   */
  async stop(): Promise<void> {
    const wasStarted = this.started;
    this.started = false;
    this.unwatch?.();
    this.unwatch = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    await this.purging;
    if (!wasStarted) return;
    try {
      while ((await this.runOnce()) === this.batchSize);
    } catch (err) {
      this.logger.warn({ err }, 'outbox relay could not publish everything before stopping; the next start will');
    }
  }

  /** Runs soon instead of at the next tick: new events were committed. */
  nudge(): void {
    if (!this.started) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /**
   * Publishes one batch; returns how many rows it marked published (none while another relay of the schema
   * publishes). Rows published before a failure are still marked; the failure is then thrown, and the rest
   * wait for the next run.
   */
  async runOnce(): Promise<number> {
    let failure: unknown;
    const marked = await this.db.transaction(async (manager) => {
      const [{ sole }] = (await this.db.queryPrepared(this.lock, [this.lockKey])) as { sole: boolean }[];
      this.lockedOut = !sole;
      if (!sole) return 0;
      const rows = (await this.db.queryPrepared(this.claim, [this.batchSize])) as { id: string; payload: CloudEvent }[];
      if (rows.length > 0 && this.sameDatabaseLog) {
        await this.sameDatabaseLog.publishWithin((sql, params) => manager.query(sql, params), rows.map((row) => row.payload));
        await this.db.queryPrepared(this.mark, [rows.map((row) => row.id)]);
        return rows.length;
      }
      const published: string[] = [];
      for (const row of rows) {
        try {
          await this.events.publish(row.payload);
        } catch (err) {
          failure = err;
          break; // keep the order: later events wait for this one
        }
        published.push(row.id);
      }
      if (published.length > 0) await this.db.queryPrepared(this.mark, [published]);
      return published.length;
    });
    if (failure !== undefined) throw failure;
    return marked;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.detached(() => this.tick()), delayMs);
  }

  private tick(): void {
    this.timer = undefined;
    this.running = this.work().then((quiet) => {
      this.running = undefined;
      this.quietRuns = quiet ? this.quietRuns + 1 : 0;
      if (!this.started) return;
      const now = this.again;
      this.again = false;
      this.schedule(now ? 0 : this.lockedOut ? LOCKED_OUT_RETRY_MS : relayPollDelay(this.intervalMs, this.idleIntervalMs, this.quietRuns));
    });
  }

  /** One tick: drain full batches back to back, then purge old rows. Answers whether it found nothing to do; never rejects. */
  private async work(): Promise<boolean> {
    let published = 0;
    try {
      let count: number;
      do {
        count = await this.runOnce();
        published += count;
        if (count > 0) this.logger.debug({ count }, 'outbox events published');
      } while (count === this.batchSize && this.started);
      if (Date.now() - this.lastPurge > HOUR_MS && !this.purging) {
        this.lastPurge = Date.now();
        // Beside the publishing, never before it: a first purge of a long-grown inbox takes a while.
        this.purging = this.purge()
          .catch((err: unknown) => this.logger.warn({ err }, 'outbox and inbox purge failed; retrying in an hour'))
          .finally(() => (this.purging = undefined));
      }
      return published === 0 && !this.lockedOut;
    } catch (err) {
      this.logger.error({ err }, 'outbox relay failed; retrying at the next tick');
      return false;
    }
  }

  /**
   * Deletes published outbox rows older than the retention, and inbox records older than twice that. An
   * inbox record guards against a second delivery of an event its consumer handled, and that comes within
   * minutes (a lost acknowledgement, a relay publishing again after a crash), so one this old guards nothing.
   */
  private async purge(): Promise<void> {
    const age = `${Math.floor(this.retentionMs / 1000)} seconds`;
    // Twice as long for inbox records (INBOX_RETENTION_MS): a durable of the Postgres event log that is created
    // again is handed every event the log still holds, up to the retention and an hour; JetStream's up to this.
    const inboxAge = `${Math.floor((2 * this.retentionMs) / 1000)} seconds`;
    const outbox = eventTable(this.db.schema, 'outbox');
    const inbox = eventTable(this.db.schema, 'inbox');
    // SKIP LOCKED: replicas purging at once share the rows instead of waiting on each other. A stopping relay stops after its batch.
    const batch = async (table: string, old: string, olderThan: string) =>
      this.started
        ? queryResult(await this.db.manager.query(`DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${old} LIMIT $2 FOR UPDATE SKIP LOCKED))`, [olderThan, PURGE_BATCH])).count
        : 0;
    await inBatches(PURGE_BATCH, () => batch(outbox, 'published_at IS NOT NULL AND published_at < now() - $1::interval', age));
    await inBatches(PURGE_BATCH, () => batch(inbox, 'processed_at < now() - $1::interval', inboxAge));
  }
}
