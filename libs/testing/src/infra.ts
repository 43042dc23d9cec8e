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

/**
 * Test set-up and checks run through one small pool per database, never the code under test. A pool, not a
 * client per query: a test that makes 100 users at once must not open 100 connections next to the system's
 * own pools (Postgres' default limit is 100).
 */
const pools = new Map<string, pg.Pool>();

function poolFor(url: string): pg.Pool {
  let pool = pools.get(url);
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, max: 4, idleTimeoutMillis: 1_000, allowExitOnIdle: true });
    // An idle connection cut by a dropped database or a restarted server is not a test failure.
    pool.on('error', () => undefined);
    pools.set(url, pool);
  }
  return pool;
}

export async function queryDatabase<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  return (await poolFor(url).query(text, values)).rows as T[];
}

/** Closes the pool of a database the test is done with. */
export async function releaseDatabase(url: string): Promise<void> {
  const pool = pools.get(url);
  pools.delete(url);
  await pool?.end();
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
      await releaseDatabase(url.toString());
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
