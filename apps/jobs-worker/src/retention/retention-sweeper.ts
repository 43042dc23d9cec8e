import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DOWNLOAD_JOB } from '@lms/contracts';
import { Database, type FileStore, intSetting, LOGGER, type Logger, PeriodicTask } from '@lms/platform';
import { FILE_STORE } from '../job-executor.js';

/** How long finished work is kept (docs/jobs.md "Retention"); read once at start. */
export interface RetentionPolicy {
  /** A finished download (its row and its file) is removed this many days after it finished. */
  downloadDays: number;
  /** A settled notification delivery (sent, failed, skipped) is removed this many days after it settled. */
  deliveryDays: number;
  /** How often each worker replica sweeps. */
  intervalMs: number;
}

export function retentionPolicy(env: NodeJS.ProcessEnv = process.env): RetentionPolicy {
  return {
    downloadDays: intSetting(env, 'DOWNLOAD_RETENTION_DAYS', 7, 1, 3650),
    deliveryDays: intSetting(env, 'NOTIFICATION_RETENTION_DAYS', 90, 1, 3650),
    intervalMs: intSetting(env, 'RETENTION_INTERVAL_MS', 3_600_000, 1_000, 86_400_000),
  };
}

export const RETENTION_POLICY = Symbol('RETENTION_POLICY');

/** Rows removed per statement: a sweep never holds many locks, nor one long transaction. */
const BATCH = 500;

/** Runs `batch` until one removes fewer than BATCH rows; answers how many went in all. */
async function batches(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await batch();
    total += removed;
    if (removed < BATCH) return total;
  }
}

/**
 * Removes finished work past its retention: downloads with their files, settled notification deliveries.
 * Every jobs-worker replica sweeps on its own timer; each batch takes its rows with SKIP LOCKED, so replicas
 * sweeping at once share the work instead of waiting on each other. A download's file is deleted before its
 * row, in the row's transaction: a worker killed between the two leaves a row whose file is gone (the next
 * sweep removes it), never a file no row names.
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
      const removed = await this.sweep(new Date());
      if (removed.downloads + removed.deliveries > 0) logger.info(removed, 'retention sweep removed finished work');
    }, logger);
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** Removes what is past retention at `now` (a parameter, so a test drives the clock); answers the counts. */
  async sweep(now: Date): Promise<{ downloads: number; deliveries: number }> {
    const day = 86_400_000;
    const downloadsBefore = new Date(now.getTime() - this.policy.downloadDays * day);
    const deliveriesBefore = new Date(now.getTime() - this.policy.deliveryDays * day);
    return { downloads: await batches(() => this.sweepDownloads(downloadsBefore)), deliveries: await batches(() => this.sweepDeliveries(deliveriesBefore)) };
  }

  private async sweepDownloads(before: Date): Promise<number> {
    const jobs = `"${this.db.schema}".jobs`;
    return this.db.transaction(async (m) => {
      const rows = (await m.query(
        `SELECT id, file_key FROM ${jobs} WHERE kind = $1 AND status IN ('done', 'failed') AND finished_at < $2 ORDER BY finished_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
        [DOWNLOAD_JOB, before, BATCH],
      )) as { id: string; file_key: string | null }[];
      if (rows.length === 0) return 0;
      for (const row of rows) if (row.file_key) await this.files.delete(row.file_key);
      await m.query(`DELETE FROM ${jobs} WHERE id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
      return rows.length;
    });
  }

  private async sweepDeliveries(before: Date): Promise<number> {
    const deliveries = `"${this.db.schema}".notification_deliveries`;
    const gone = (await this.db.manager.query(
      `DELETE FROM ${deliveries} WHERE id IN (
         SELECT id FROM ${deliveries} WHERE status IN ('sent', 'failed', 'skipped') AND updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ) RETURNING id`,
      [before, BATCH],
    )) as unknown[];
    return gone.length;
  }
}
