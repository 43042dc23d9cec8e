import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@lms/contracts';
import type { QueryRunner } from 'typeorm';
import { type Database, prepare, type PreparedStatement } from '../persistence/database.js';
import type { TenantScope } from '../persistence/tenant-repository.js';
import { eventTable } from './event-tables.js';

/**
 * Records domain events in the service's outbox table, in the transaction that changes the domain rows,
 * so the event exists if and only if the change committed (design §5). The relay publishes them later.
 */
export class Outbox {
  private readonly source: string;
  private readonly listeners = new Set<() => void>();
  /** Transactions that added events and have not ended yet. */
  private readonly pending = new WeakSet<QueryRunner>();
  private readonly insert: PreparedStatement;

  constructor(
    private readonly db: Database,
    source: string,
  ) {
    this.source = `/${source.replace(/^\/+/, '')}`;
    // clock_timestamp, not now(): events of one transaction keep the order they were added in.
    this.insert = prepare(`INSERT INTO ${eventTable(db.schema, 'outbox')} (id, type, subject, account_id, payload, created_at) VALUES ($1, $2, $3, $4, $5, clock_timestamp())`);
    // TypeORM tells subscribers when a transaction commits: that is when the relay can see the rows.
    db.dataSource.subscribers.push({
      afterTransactionCommit: ({ queryRunner }) => {
        if (queryRunner.isTransactionActive || !this.pending.has(queryRunner)) return; // a savepoint, or no events
        this.pending.delete(queryRunner);
        this.notify();
      },
      afterTransactionRollback: ({ queryRunner }) => {
        if (!queryRunner.isTransactionActive) this.pending.delete(queryRunner);
      },
    });
  }

  /**
   * Adds an event to the outbox in the current transaction. Refuses to run outside one: an event written
   * on its own could be published for a change that then rolls back.
   */
  async add<T>(scope: TenantScope, type: string, data: T, subject?: string): Promise<CloudEvent<T>> {
    if (!this.db.inTransaction) throw new Error(`outbox: event ${type} must be added inside db.transaction()`);
    // The type becomes a subject: one the relay could never publish would hold up the outbox.
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(type)) throw new Error(`outbox: invalid event type '${type}'`);
    const event: CloudEvent<T> = {
      specversion: '1.0',
      id: randomUUID(),
      source: this.source,
      type,
      time: new Date().toISOString(),
      ...(subject === undefined ? {} : { subject }),
      datacontenttype: 'application/json',
      accountid: scope.accountId,
      data,
    };
    await this.db.queryPrepared(this.insert, [event.id, type, subject ?? null, scope.accountId, JSON.stringify(event)]);
    const { queryRunner } = this.db.manager;
    if (queryRunner) this.pending.add(queryRunner);
    return event;
  }

  /** Called after a transaction that added events commits (the relay's nudge); the relay polls anyway. */
  onAdded(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A nudge is an optimisation: the relay's poll still publishes the events.
      }
    }
  }
}
