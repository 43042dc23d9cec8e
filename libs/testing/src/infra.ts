import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Test infrastructure (design §8): the global setup resolves a Postgres server and, when one can be had,
 * a NATS server, and publishes them as TEST_DATABASE_URL / TEST_NATS_URL for every worker.
 * An empty TEST_NATS_URL means no server was found: tests use the in-process bus.
 */
export function testDatabaseServerUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run tests through jest with the global setup');
  return url;
}

export function testNatsUrl(): string | undefined {
  return process.env.TEST_NATS_URL || undefined;
}

/** A short random name, for databases and NATS namespaces that must not collide across parallel test files. */
export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/** One query on its own connection: test set-up and checks, never the code under test. */
export async function queryDatabase<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** A fresh database on the test server, so parallel test files never share rows or schemas. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = testDatabaseServerUrl();
  const name = uniqueName('lms_test');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    query: (text, values) => queryDatabase(url.toString(), text, values),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** CONTEXT_SIGNING_KEY for the deployables a test starts on a shared NATS server (test use only). */
export const TEST_CONTEXT_SIGNING_KEY = 'test-only-context-signing-key-not-a-secret';
