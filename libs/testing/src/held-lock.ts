import pg from 'pg';
import { eventually } from './http-client.js';

/** Backends waiting behind this session, directly or behind one that is. */
const WAITING_BEHIND = `WITH RECURSIVE behind AS (
                          SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))
                          UNION SELECT a.pid FROM pg_stat_activity a JOIN behind b ON b.pid = ANY (pg_blocking_pids(a.pid)))
                        SELECT count(*)::int AS n FROM behind`;

/** A transaction of the test's own that holds a lock, so a request waits behind it at a chosen point. */
export interface HeldLock {
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** Resolves once `count` backends wait behind the lock, transitively: requests queued where the test wants them. */
  waiters(count?: number, timeoutMs?: number): Promise<void>;
  /** Ends the transaction and lets the waiters on; `rollback` undoes what the lock statement wrote. */
  release(outcome?: 'commit' | 'rollback'): Promise<void>;
}

/**
 * Races made deterministic: takes a lock with `lockSql` in a transaction on a session of its own, runs
 * `body` while holding it (start a request, wait until it queues, act, release), and closes the session
 * however `body` ends, which rolls back a transaction still open.
 */
export async function holdingLock<T>(url: string, lockSql: string, values: unknown[], body: (held: HeldLock) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(lockSql, values);
    return await body({
      query: async (text, params) => (await client.query(text, params)).rows,
      waiters: async (count = 1, timeoutMs) => {
        await eventually(async () => {
          // pg_stat_activity is read once per transaction unless told otherwise: each poll must see backends that came since.
          await client.query('SELECT pg_stat_clear_snapshot()');
          return (await client.query<{ n: number }>(WAITING_BEHIND)).rows[0].n >= count ? true : undefined;
        }, timeoutMs);
      },
      release: async (outcome = 'commit') => void (await client.query(outcome === 'commit' ? 'COMMIT' : 'ROLLBACK')),
    });
  } finally {
    await client.end();
  }
}
