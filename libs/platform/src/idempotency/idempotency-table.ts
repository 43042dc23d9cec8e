import type { QueryRunner } from 'typeorm';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `"schema".idempotency_keys`, for the raw SQL of the idempotency guard. */
export const idempotencyTable = (schema: string) => `${quoteIdent(schema)}.idempotency_keys`;

/**
 * Creates the table where a service remembers the `Idempotency-Key`s of the writes it did and their
 * answers, in its own schema; every service with POST routes adds it with this one helper.
 * The reply is kept as text, so a replay sends back the very bytes of the first answer.
 */
export async function idempotencyTableUp(queryRunner: QueryRunner, schema: string): Promise<void> {
  const table = idempotencyTable(schema);
  await queryRunner.query(`
    CREATE TABLE ${table} (
      account_id integer NOT NULL,
      user_id integer NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      reply text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, user_id, key)
    )`);
  // The purge deletes by age across every account.
  await queryRunner.query(`CREATE INDEX idempotency_keys_created_idx ON ${table} (created_at)`);
}

export async function idempotencyTableDown(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE IF EXISTS ${idempotencyTable(schema)}`);
}
