import type { CloudEvent } from '@lms/contracts';
import type { EntityManager } from 'typeorm';
import type { ConsumerOptions, EventLog, Subscription } from '../messaging/message-bus.js';
import { type Database, prepare } from '../persistence/database.js';
import { eventTable } from './event-tables.js';

/**
 * Consumes events exactly once in effect: each delivery runs in one transaction that first records
 * (consumer, event id) in the inbox, then runs the handler, whose writes join through `db.manager`.
 * A redelivered event finds its inbox row and is skipped; a failing handler rolls the inbox row back too,
 * so its retry runs again.
 */
export function subscribeWithInbox(
  db: Database,
  events: EventLog,
  options: ConsumerOptions,
  handler: (event: CloudEvent, manager: EntityManager) => Promise<void>,
): Promise<Subscription> {
  const record = prepare(`INSERT INTO ${eventTable(db.schema, 'inbox')} (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`);
  return events.consume(options, (event) =>
    db.transaction(async (manager) => {
      // A concurrent delivery of the same event waits here on the key until the first one commits or rolls back.
      const inserted = await db.queryPrepared(record, [options.durable, event.id]);
      if (inserted.length === 0) return; // handled before: redelivery has no second effect
      await handler(event, manager);
    }),
  );
}
