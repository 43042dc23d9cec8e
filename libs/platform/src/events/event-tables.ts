import type { QueryRunner } from 'typeorm';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `"schema".table`, for the raw SQL of the outbox and inbox. */
export const eventTable = (schema: string, table: 'outbox' | 'inbox') => `${quoteIdent(schema)}.${table}`;

/**
 * Creates the outbox (events waiting for the relay) and the inbox (events a consumer has handled) in a
 * service's schema; every service's first migration calls it.
 */
export async function eventTablesUp(queryRunner: QueryRunner, schema: string): Promise<void> {
  const outbox = eventTable(schema, 'outbox');
  await queryRunner.query(`
    CREATE TABLE ${outbox} (
      id uuid PRIMARY KEY,
      type text NOT NULL,
      subject text NULL,
      account_id integer NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz NULL
    )`);
  // The relay only ever looks for unpublished rows, oldest first; published rows stay out of the index.
  await queryRunner.query(`CREATE INDEX outbox_unpublished_idx ON ${outbox} (created_at) WHERE published_at IS NULL`);
  await queryRunner.query(`
    CREATE TABLE ${eventTable(schema, 'inbox')} (
      consumer text NOT NULL,
      event_id uuid NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer, event_id)
    )`);
}

/**
 * The index the relay's hourly purge finds the inbox's old records by: an hour's few are an index range
 * however large the inbox (the first purge of one never purged before scans it instead).
 */
export async function inboxAgeIndexUp(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`CREATE INDEX IF NOT EXISTS inbox_processed_at_idx ON ${eventTable(schema, 'inbox')} (processed_at)`);
}

export async function inboxAgeIndexDown(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP INDEX IF EXISTS ${quoteIdent(schema)}.inbox_processed_at_idx`);
}

export async function eventTablesDown(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE IF EXISTS ${eventTable(schema, 'inbox')}`);
  await queryRunner.query(`DROP TABLE IF EXISTS ${eventTable(schema, 'outbox')}`);
}
