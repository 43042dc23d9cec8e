import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type CloudEvent, JOB_REQUESTED_EVENT, type JobRequestedData, JOBS_WORKER_CONSUMER, type JobStatus } from '@lms/contracts';
import { Database, type DeliveryInfo, type FileStore, LeaseLost, LOGGER, type Logger, MESSAGE_BUS, type MessageBus, queryResult, type Subscription } from '@lms/platform';
import { FILE_STORE, JOB_EXECUTORS, type Job, type JobContext, type JobExecutor, JobFailed, jobFileKey, type JobResult } from './job-executor.js';

export interface RetryPolicy {
  /** Attempts a job gets before it ends `failed`. */
  maxAttempts: number;
  /** Pause before each next attempt (and before the delivery that records the failure); the last value repeats. */
  backoffMs: number[];
  /**
   * A worker that stops answering loses its job to another replica after this long (JetStream's ack wait;
   * the Postgres log gives it back at once when the worker's session is gone). A live worker renews it.
   */
  leaseMs: number;
}

/**
 * Deliveries after the last attempt that end the job `failed`, undoing its effects first (`abandon`). More than
 * one: a worker lost while undoing would otherwise leave the job `running` for ever, its next delivery
 * dead-lettered unread. The last of them ends the job before it undoes anything.
 */
export const GIVE_UP_DELIVERIES = 3;

/** docs/jobs.md: three attempts, 2 s, 10 s and 30 s apart. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, backoffMs: [2_000, 10_000, 30_000], leaseMs: 10_000 };
export const RETRY_POLICY = Symbol('RETRY_POLICY');

interface JobRow {
  id: string;
  account_id: number;
  kind: string;
  params: Record<string, unknown>;
  status: JobStatus;
  created_by: number | null;
  attempts: number;
}

/**
 * Takes jobs from the work queue shared by every jobs-worker replica (the durable consumer `jobs-worker`
 * on the event log) one at a time, and moves each to its end state in the jobs schema.
 *
 * The log delivers a job until it is acknowledged: a worker killed mid-run leaves it to be delivered again,
 * and a failing run is retried after a back-off. Every state change is guarded by the attempt that made
 * it, so a worker that lost its lease cannot complete a job another attempt now owns (nor settle the event
 * that attempt holds, nor touch its file: each attempt writes its own). After maxAttempts
 * failed (or lost) attempts the next delivery undoes the job and marks it `failed` (GIVE_UP_DELIVERIES:
 * should its worker be lost too, the next one does); the deliveries after fail at once, and the log
 * dead-letters the last.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: Subscription;
  private readonly byKind: Map<string, JobExecutor>;

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(FILE_STORE) private readonly files: FileStore,
    @Inject(JOB_EXECUTORS) executors: JobExecutor[],
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RETRY_POLICY) private readonly retry: RetryPolicy,
  ) {
    this.byKind = new Map(executors.map((e) => [e.kind, e]));
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.events.consume(
      {
        durable: JOBS_WORKER_CONSUMER,
        types: [JOB_REQUESTED_EVENT],
        // Deliveries beyond the attempts record the failure, even when the last attempt's worker died.
        maxDeliver: this.retry.maxAttempts + GIVE_UP_DELIVERIES,
        backoffMs: this.retry.backoffMs,
        ackWaitMs: this.retry.leaseMs,
        prefetch: 1,
      },
      (event, info) => this.handle(event, info),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe(); // the job in progress finishes first
  }

  private table(): string {
    return `"${this.db.schema}".jobs`;
  }

  private async handle(event: CloudEvent, { deliveryCount: attempt }: DeliveryInfo): Promise<void> {
    const { job_id: jobId } = event.data as JobRequestedData;
    const [row] = (await this.db.manager.query(
      `SELECT id, account_id, kind, params, status, created_by, attempts FROM ${this.table()} WHERE id = $1 AND account_id = $2`,
      [jobId, event.accountid],
    )) as JobRow[];
    if (!row || row.status === 'done' || row.status === 'failed') {
      // A job given up is dead-lettered: its later deliveries fail too, up to the log's last.
      if (row?.status === 'failed' && attempt > this.retry.maxAttempts) throw new Error(`job ${jobId} was given up after ${this.retry.maxAttempts} attempts`);
      return; // gone, or finished by an earlier delivery
    }
    // A delivery no newer than the job's attempt waited in a stalled worker while a later one took the job over.
    if (row.attempts >= attempt) throw new LeaseLost(`job ${jobId}: delivery ${attempt} is older than attempt ${row.attempts}`);

    const lost = row.status === 'running' ? [`attempt ${row.attempts} stopped before it finished (its worker was lost)`] : [];
    const { maxAttempts } = this.retry;
    const job: Job = { id: row.id, accountId: row.account_id, kind: row.kind, params: row.params, createdBy: row.created_by, attempt };
    if (attempt > maxAttempts) {
      const failed = `status = 'failed', finished_at = now(), error_messages = error_messages || $3::text[]`;
      const gaveUp = [...lost, `gave up after ${maxAttempts} attempts`];
      // The log delivers no more after the last: it ends the job first, so no lost worker leaves it `running`.
      const last = attempt >= maxAttempts + GIVE_UP_DELIVERIES;
      if (last) await this.claim(jobId, attempt, failed, [gaveUp]);
      const undone = await this.abandon(job, row.kind);
      if (!last) await this.claim(jobId, attempt, failed, [[...gaveUp, ...undone]]);
      else if (undone.length > 0) await this.db.manager.query(`UPDATE ${this.table()} SET error_messages = error_messages || $2::text[] WHERE id = $1`, [jobId, undone]);
      this.logger.error({ jobId, kind: row.kind }, 'job failed');
      throw new Error(`job ${jobId} failed after ${maxAttempts} attempts`); // delivered again until the log's last, which it dead-letters
    }

    await this.claim(jobId, attempt, `status = 'running', attempts = $2, progress = 0, started_at = coalesce(started_at, now()), error_messages = error_messages || $3::text[]`, [lost]);
    let result: JobResult;
    try {
      const executor = this.byKind.get(row.kind);
      if (!executor) throw new Error(`no executor for job kind '${row.kind}'`);
      result = await executor.run(job, this.contextOf(job));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof JobFailed) {
        // Final: no retry would change the answer. Acknowledged, so the log does not deliver it again.
        await this.settle(job, `status = 'failed', finished_at = now(), error_messages = error_messages || $3::text[]`, [[message]]);
        this.logger.warn({ jobId, kind: row.kind, attempt, err }, 'job failed');
        return;
      }
      // Back to `pending` while it waits for its retry; the message stays with the job.
      await this.settle(job, `status = 'pending', error_messages = error_messages || $3::text[]`, [[`attempt ${attempt}: ${message}`]]);
      this.logger.warn({ jobId, kind: row.kind, attempt, err }, 'job attempt failed');
      throw err;
    }
    const { file } = result;
    await this.settle(job, `status = 'done', progress = 100, finished_at = now(), file_key = $3, file_name = $4, file_size = $5, result = $6`, [
      file?.key ?? null,
      file?.name ?? null,
      file?.size ?? null,
      result.result ? JSON.stringify(result.result) : null,
    ], file);
    if (file && attempt > 1) await this.dropEarlierAttempts(job, file.key);
  }

  /**
   * Undoes a given-up job's effects elsewhere, as often as a delivery gives it up (an undo is harmless twice).
   * Should that fail, the job still ends `failed` (never stuck), saying so; the dead letter keeps the event.
   */
  private async abandon(job: Job, kind: string): Promise<string[]> {
    const executor = this.byKind.get(kind);
    if (!executor?.abandon) return [];
    try {
      await executor.abandon(job, this.contextOf(job));
      return [];
    } catch (err) {
      this.logger.error({ jobId: job.id, kind, err }, 'job abandon failed');
      return [`undoing its effects failed: ${err instanceof Error ? err.message : String(err)}`];
    }
  }

  private contextOf(job: Job): JobContext {
    return {
      bus: this.bus,
      files: this.files,
      logger: this.logger.child({ jobId: job.id, kind: job.kind }),
      db: this.db,
      progress: (percent) => this.progress(job, percent),
    };
  }

  private async progress(job: Job, percent: number): Promise<void> {
    const value = Math.max(0, Math.min(99, Math.floor(percent)));
    await this.updateOwned(job.id, job.attempt, 'progress = $3', [value]);
  }

  /**
   * Applies `set` for this delivery unless, since it read the job, a newer delivery took the job or ended it:
   * a worker can stall between that read and this write for longer than its lease. `$2` is the attempt,
   * the parameters are `$3`, ...
   */
  private async claim(jobId: string, attempt: number, set: string, params: unknown[]): Promise<void> {
    const result = await this.db.manager.query(
      `UPDATE ${this.table()} SET ${set}, updated_at = now() WHERE id = $1 AND attempts < $2 AND status IN ('pending', 'running')`,
      [jobId, attempt, ...params],
    );
    if (queryResult(result).count === 0) throw new LeaseLost(`job ${jobId}: delivery ${attempt} was overtaken after it read the job`);
  }

  /**
   * Applies `set` only while `attempt` still owns the running job; `$2` is the attempt, the parameters are `$3`, ...
   * Answers whether it did.
   */
  private async updateOwned(jobId: string, attempt: number, set: string, params: unknown[]): Promise<boolean> {
    const result = await this.db.manager.query(`UPDATE ${this.table()} SET ${set}, updated_at = now() WHERE id = $1 AND attempts = $2 AND status = 'running'`, [jobId, attempt, ...params]);
    return queryResult(result).count > 0;
  }

  /**
   * Records this attempt's end while it still owns the job. Otherwise its file, at a key of this attempt's
   * own, is named by no row and goes; and unless the job itself is gone (a newer data dump replaced it), a
   * later delivery owns the event now: LeaseLost leaves the event to that one to settle.
   */
  private async settle(job: Job, set: string, params: unknown[], file?: { key: string }): Promise<void> {
    if (await this.updateOwned(job.id, job.attempt, set, params)) return;
    if (file) {
      await this.files.delete(file.key);
      this.logger.info({ jobId: job.id, attempt: job.attempt, key: file.key }, 'attempt no longer owns its job: its file removed');
    }
    const rows = (await this.db.manager.query(`SELECT 1 FROM ${this.table()} WHERE id = $1`, [job.id])) as unknown[];
    if (rows.length > 0) throw new LeaseLost(`job ${job.id}: attempt ${job.attempt} lost its lease to a later attempt`);
  }

  /** What an earlier attempt, killed after storing its file and before recording it, left at its own key. */
  private async dropEarlierAttempts(job: Job, key: string): Promise<void> {
    const name = key.slice(key.lastIndexOf('/') + 1);
    for (let attempt = 1; attempt < job.attempt; attempt += 1) {
      const earlier = jobFileKey({ id: job.id, attempt }, name);
      if (earlier !== key) await this.files.delete(earlier);
    }
  }
}
