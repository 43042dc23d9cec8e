import type { QueryRunner } from 'typeorm';
import { intSetting } from '../config/config.js';
import { type Database, queryResult } from '../persistence/database.js';
import type { FileStore } from './file-store.js';

/**
 * Sweeps of the file store for files no row names (docs/jobs.md "Retention"): what a process killed between
 * storing a file and recording it leaves. A service that writes files sweeps its own key prefixes against its
 * own tables, once per interval for all its replicas (`claimSweep`), since listing a bucket reads every
 * matching file's metadata.
 */
export interface FileSweepPolicy {
  /** How often a service sweeps its files (once for all its replicas). */
  intervalMs: number;
  /** A file younger than this is never swept: the process that stored it may be about to record it. */
  minAgeMs: number;
}

export function fileSweepPolicy(env: NodeJS.ProcessEnv = process.env): FileSweepPolicy {
  return {
    intervalMs: intSetting(env, 'FILE_SWEEP_INTERVAL_MS', 86_400_000, 1_000, 30 * 86_400_000),
    minAgeMs: intSetting(env, 'FILE_SWEEP_MIN_AGE_MS', 3_600_000, 0, 30 * 86_400_000),
  };
}

/** `<schema>.sweeps`: when each sweep shared by a service's replicas last ran. */
export async function sweepsTableUp(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`CREATE TABLE "${schema}".sweeps (name text PRIMARY KEY, last_run_at timestamptz NOT NULL)`);
}

export async function sweepsTableDown(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`DROP TABLE "${schema}".sweeps`);
}

/** Whether this replica runs the sweep `name` now: true for one replica once per `intervalMs`. */
export async function claimSweep(db: Database, name: string, intervalMs: number): Promise<boolean> {
  const claimed = await db.manager.query(
    `INSERT INTO "${db.schema}".sweeps AS s (name, last_run_at) VALUES ($1, now())
       ON CONFLICT (name) DO UPDATE SET last_run_at = now() WHERE s.last_run_at <= now() - make_interval(secs => $2 / 1000.0)
     RETURNING name`,
    [name, intervalMs],
  );
  return queryResult(claimed).rows.length > 0;
}

/** Keys asked about at once. */
const BATCH = 500;

/**
 * Deletes the files under `prefix` last written before `before` that `unnamed` (asked 500 keys at a time)
 * answers no row names; answers how many went.
 */
export async function removeUnnamedFiles(files: FileStore, prefix: string, before: Date, unnamed: (keys: string[]) => Promise<string[]>): Promise<number> {
  let removed = 0;
  let batch: string[] = [];
  const flush = async () => {
    for (const key of batch.length > 0 ? await unnamed(batch) : []) {
      await files.delete(key);
      removed += 1;
    }
    batch = [];
  };
  for await (const file of files.list(prefix)) {
    if (file.modifiedAt >= before) continue;
    batch.push(file.key);
    if (batch.length === BATCH) await flush();
  }
  await flush();
  return removed;
}
