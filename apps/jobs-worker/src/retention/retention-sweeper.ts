import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DATA_DUMP_JOB, DOWNLOAD_JOB, IMPORT_JOB, UUID_PATTERN } from '@lms/contracts';
import { claimSweep, Database, FILE_URL_TTL_SECONDS, type FileStore, type FileSweepPolicy, fileSweepPolicy, inBatches, intSetting, LOGGER, type Logger, PeriodicTask, queryResult, removeUnnamedFiles } from '@lms/platform';
import { FILE_STORE } from '../job-executor.js';

/** How long finished work is kept (docs/jobs.md "Retention"); read once at start. */
export interface RetentionPolicy {
  /** A finished download (its row and its file) is removed this many days after it finished. */
  downloadDays: number;
  /** A settled notification delivery (sent, failed, skipped) is removed this many days after it settled. */
  deliveryDays: number;
  /** A finished import run is removed this many days after it finished, unless it is its account's latest. */
  importRunDays: number;
  /** How often each worker replica sweeps. */
  intervalMs: number;
  /** The sweep of job files no job names (FILE_SWEEP_INTERVAL_MS, FILE_SWEEP_MIN_AGE_MS). */
  files: FileSweepPolicy;
}

export function retentionPolicy(env: NodeJS.ProcessEnv = process.env): RetentionPolicy {
  return {
    downloadDays: intSetting(env, 'DOWNLOAD_RETENTION_DAYS', 7, 1, 3650),
    deliveryDays: intSetting(env, 'NOTIFICATION_RETENTION_DAYS', 90, 1, 3650),
    // Past the scheduler's catch-up (at most 7 days), so a removed run's slot is never run again.
    importRunDays: intSetting(env, 'IMPORT_RUN_RETENTION_DAYS', 90, 8, 3650),
    intervalMs: intSetting(env, 'RETENTION_INTERVAL_MS', 3_600_000, 1_000, 86_400_000),
    files: fileSweepPolicy(env),
  };
}

export const RETENTION_POLICY = Symbol('RETENTION_POLICY');

/** Rows removed per statement: a sweep never holds many locks, nor one long transaction. */
const BATCH = 500;

/** A delivery still `pending` or `sending` this long after its last attempt will never be tried again. */
const ABANDONED_AFTER_DAYS = 7;

/** `jobs/<job id>/...`: the file keys jobs write (`jobFileKey`, and `jobs/<job id>/<name>` before attempts had their own). */
const JOB_FILE_KEY = new RegExp(`^jobs/(${UUID_PATTERN})/`);

const batches = (batch: () => Promise<number>) => inBatches(BATCH, batch);

/**
 * Removes finished work past its retention: downloads with their files, data dumps a newer one replaced
 * with their files, settled notification deliveries. Every jobs-worker replica sweeps on its own timer; each
 * batch takes its rows with SKIP LOCKED, so replicas sweeping at once share the work instead of waiting on
 * each other. A file is deleted before its row's deletion commits: a worker killed between the two leaves a
 * row whose file is gone (the next sweep removes it), never a file no row names.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: Database,
    @Inject(FILE_STORE) private readonly files: FileStore,
    @Inject(LOGGER) logger: Logger,
    @Inject(RETENTION_POLICY) private readonly policy: RetentionPolicy,
  ) {
    this.task = new PeriodicTask('retention sweep', policy.intervalMs, async () => {
      const now = new Date();
      const removed = await this.sweep(now);
      if (Object.values(removed).some((n) => n > 0)) logger.info(removed, 'retention sweep removed finished work');
      if (await claimSweep(db, 'files', policy.files.intervalMs)) {
        const files = await this.sweepFiles(new Date(now.getTime() - policy.files.minAgeMs));
        logger.info(files, 'file sweep done');
      }
    }, logger);
  }

  /** At once, then every interval: a worker that scales to zero between jobs may not live a whole interval. */
  onApplicationBootstrap(): void {
    this.task.start({ now: true });
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** Removes what is past retention at `now` (a parameter, so a test drives the clock); answers the counts. */
  async sweep(now: Date): Promise<{ downloads: number; dumps: number; deliveries: number; abandoned: number; imports: number }> {
    const day = 86_400_000;
    const downloadsBefore = new Date(now.getTime() - this.policy.downloadDays * day);
    // A dump's signed URL was handed out until the newer one was complete, and lives FILE_URL_TTL_SECONDS.
    const replacedBefore = new Date(now.getTime() - FILE_URL_TTL_SECONDS * 1000);
    const deliveriesBefore = new Date(now.getTime() - this.policy.deliveryDays * day);
    return {
      downloads: await batches(() => this.sweepDownloads(downloadsBefore)),
      dumps: await batches(() => this.sweepReplacedDumps(replacedBefore)),
      deliveries: await batches(() => this.sweepDeliveries(deliveriesBefore)),
      abandoned: await batches(() => this.abandonDeliveries(new Date(now.getTime() - ABANDONED_AFTER_DAYS * day))),
      imports: await batches(() => this.sweepImportRuns(new Date(now.getTime() - this.policy.importRunDays * day))),
    };
  }

  private sweepDownloads(before: Date): Promise<number> {
    return this.removeJobs(
      `SELECT id, account_id, kind, file_key FROM ${this.jobs} WHERE kind = $1 AND status IN ('done', 'failed') AND finished_at < $2 ORDER BY finished_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [DOWNLOAD_JOB, before, BATCH],
      false,
    );
  }

  /** Finished import runs (job and run rows; they write no file) finished before `before`, but each account's latest. */
  private sweepImportRuns(before: Date): Promise<number> {
    return this.removeJobs(
      `SELECT old.id, old.account_id, old.kind, old.file_key FROM ${this.jobs} old
        WHERE old.kind = $1 AND old.status IN ('done', 'failed') AND old.finished_at < $2
          AND EXISTS (SELECT 1 FROM ${this.jobs} newer WHERE newer.account_id = old.account_id AND newer.kind = old.kind AND newer.created_at > old.created_at)
        ORDER BY old.finished_at LIMIT $3 FOR UPDATE OF old SKIP LOCKED`,
      [IMPORT_JOB, before, BATCH],
      false,
    );
  }

  /** Complete data dumps of an account that has a newer complete one, finished before `before`. */
  private sweepReplacedDumps(before: Date): Promise<number> {
    return this.removeJobs(
      `SELECT old.id, old.account_id, old.kind, old.file_key FROM ${this.jobs} old
        WHERE old.kind = $1 AND old.status = 'done'
          AND EXISTS (SELECT 1 FROM ${this.jobs} newer WHERE newer.account_id = old.account_id AND newer.kind = old.kind AND newer.status = 'done'
                        AND newer.created_at > old.created_at AND newer.finished_at < $2)
        ORDER BY old.created_at LIMIT $3 FOR UPDATE OF old SKIP LOCKED`,
      [DATA_DUMP_JOB, before, BATCH],
      // Dumps made before each had its own file shared one key per account.
      true,
    );
  }

  /**
   * Deletes the job rows `select` locks and, before that commits, their files; with `sharedKeys`, only the
   * files no remaining row of the account and kind names.
   */
  private removeJobs(select: string, params: unknown[], sharedKeys: boolean): Promise<number> {
    return this.db.transaction(async (m) => {
      const rows = (await m.query(select, params)) as { id: string; account_id: number; kind: string; file_key: string | null }[];
      if (rows.length === 0) return 0;
      await m.query(`DELETE FROM ${this.jobs} WHERE id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
      const named = rows.filter((r) => r.file_key !== null);
      const keys = sharedKeys
        ? ((await m.query(
            `SELECT DISTINCT k.file_key FROM unnest($1::int[], $2::text[], $3::text[]) AS k (account_id, kind, file_key)
              WHERE NOT EXISTS (SELECT 1 FROM ${this.jobs} j WHERE j.account_id = k.account_id AND j.kind = k.kind AND j.file_key = k.file_key)`,
            [named.map((r) => r.account_id), named.map((r) => r.kind), named.map((r) => r.file_key)],
          )) as { file_key: string }[]).map((r) => r.file_key)
        : named.map((r) => r.file_key!);
      for (const key of keys) await this.files.delete(key);
      return rows.length;
    });
  }

  /**
   * Removes job files last written before `before` that no job names, and whose job no attempt may still
   * complete: the file of a worker killed between storing it and learning its job was forgotten, and that of
   * an attempt killed after storing its file on a job that then failed. Then what the store keeps of killed
   * writes and deleted files (`removeLeftovers`). Files outside `jobs/` are not the jobs service's to judge.
   */
  async sweepFiles(before: Date): Promise<{ files: number; leftovers: number }> {
    const files = await removeUnnamedFiles(this.files, 'jobs/', before, async (keys) => {
      const ours = keys.flatMap((key) => {
        const jobId = JOB_FILE_KEY.exec(key)?.[1];
        return jobId ? [{ key, jobId }] : [];
      });
      const unnamed = (await this.db.manager.query(
        `SELECT k.key FROM unnest($1::text[], $2::uuid[]) AS k (key, job_id)
          WHERE NOT EXISTS (SELECT 1 FROM ${this.jobs} j WHERE j.id = k.job_id AND (j.file_key = k.key OR j.status IN ('pending', 'running')))`,
        [ours.map((f) => f.key), ours.map((f) => f.jobId)],
      )) as { key: string }[];
      return unnamed.map((r) => r.key);
    });
    return { files, leftovers: await this.files.removeLeftovers(before) };
  }

  private get jobs(): string {
    return `"${this.db.schema}".jobs`;
  }

  /**
   * Settles as `failed` the deliveries no attempt has touched since `before`: their event was dead-lettered
   * before its last delivery could settle them (identity unreachable, say), so nothing will. Retention then
   * removes them like any failed one.
   */
  private async abandonDeliveries(before: Date): Promise<number> {
    const deliveries = `"${this.db.schema}".notification_deliveries`;
    const settled = await this.db.manager.query(
      `UPDATE ${deliveries} SET status = 'failed', error = $3, updated_at = now() WHERE id IN (
         SELECT id FROM ${deliveries} WHERE status IN ('pending', 'sending') AND updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED
       )`,
      [before, BATCH, `abandoned: no attempt for ${ABANDONED_AFTER_DAYS} days (its event was dead-lettered)`],
    );
    return queryResult(settled).count;
  }

  private async sweepDeliveries(before: Date): Promise<number> {
    const deliveries = `"${this.db.schema}".notification_deliveries`;
    const gone = await this.db.manager.query(
      `DELETE FROM ${deliveries} WHERE id IN (
         SELECT id FROM ${deliveries} WHERE status IN ('sent', 'failed', 'skipped') AND updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED
       )`,
      [before, BATCH],
    );
    return queryResult(gone).count;
  }
}
