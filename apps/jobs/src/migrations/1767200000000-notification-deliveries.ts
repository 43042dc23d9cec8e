import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notification deliveries (docs/jobs.md, "Notification delivery"): one row per event, recipient and channel,
 * unique on that key, so a redelivered event or a second worker finds the row and sends nothing twice.
 * jobs-worker writes them; jobs reads them for the administrators' list.
 */
export class NotificationDeliveries1767200000000 implements MigrationInterface {
  name = 'NotificationDeliveries1767200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs.notification_deliveries (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        notification_type text NOT NULL,
        user_id integer NOT NULL,
        channel text NOT NULL CHECK (channel IN ('email', 'slack')),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'skipped')),
        address text NULL,
        subject text NOT NULL DEFAULT '',
        error text NULL,
        attempts integer NOT NULL DEFAULT 0,
        claimed_at timestamptz NULL,
        claimed_by text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz NULL,
        CONSTRAINT notification_deliveries_once UNIQUE (account_id, event_id, user_id, channel)
      )`);
    await q.query(`CREATE INDEX notification_deliveries_account_idx ON jobs.notification_deliveries (account_id, id DESC)`);
    await q.query(`CREATE INDEX notification_deliveries_account_user_idx ON jobs.notification_deliveries (account_id, user_id, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE jobs.notification_deliveries`);
  }
}
