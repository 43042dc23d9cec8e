import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  IMPORT_JOB,
  type ImportChange,
  type ImportRowError,
  type ImportRunCounts,
  type ImportRunView,
  type JobStatus,
  type ListImportRunsQuery,
  pageWindow,
  type RequestContext,
} from '@lms/contracts';
import { Database, notFound, Outbox, type TenantScope } from '@lms/platform';
import { enqueueJob } from '../jobs/job-queue.js';

interface RunRow {
  id: string;
  status: JobStatus;
  error_messages: string[];
  finished_at: Date | null;
  trigger: 'manual' | 'schedule';
  dry_run: boolean;
  slot: Date | null;
  rows: number | null;
  counts: ImportRunCounts | null;
  errors: ImportRowError[];
  changes: ImportChange[];
  error: string | null;
  created_at: Date;
}

function toView(row: RunRow): ImportRunView {
  const failedJob = row.status === 'failed' ? (row.error_messages.at(-2) ?? row.error_messages.at(-1) ?? 'the run failed') : null;
  const error = row.error ?? failedJob;
  const status = row.status === 'done' ? (row.error ? 'failed' : 'complete') : row.status === 'failed' ? 'failed' : row.status;
  return {
    id: row.id,
    status,
    trigger: row.trigger,
    dry_run: row.dry_run,
    slot: row.slot ? row.slot.toISOString() : null,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at ? row.finished_at.toISOString() : null,
    rows: row.rows,
    counts: row.counts,
    errors: row.errors,
    changes: row.changes,
    error,
  };
}

/**
 * Import runs (docs/jobs.md "Scheduled CSV imports"): each is an `import` job with a row of its outcome.
 * A manual run and a scheduled slot are enqueued the same way; a slot at most once per account.
 */
@Injectable()
export class ImportRunsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
  ) {}

  private get schema(): string {
    return `"${this.db.schema}"`;
  }

  private select(where: string): string {
    return `SELECT j.id, j.status, j.error_messages, j.finished_at, r.trigger, r.dry_run, r.slot, r.rows, r.counts, r.errors, r.changes, r.error, r.created_at
      FROM ${this.schema}.import_runs r JOIN ${this.schema}.jobs j ON j.id = r.job_id WHERE ${where}`;
  }

  async run(ctx: RequestContext, dryRun: boolean): Promise<ImportRunView> {
    const id = await this.db.transaction(async (manager) => this.enqueue(manager, ctx, { trigger: 'manual', dryRun, createdBy: ctx.userId }));
    return this.show(ctx, id);
  }

  async list(ctx: RequestContext, query: ListImportRunsQuery): Promise<{ rows: ImportRunView[]; total: number }> {
    const { skip, take } = pageWindow(query);
    const rows = (await this.db.manager.query(`${this.select('r.account_id = $1')} ORDER BY r.created_at DESC, r.job_id DESC LIMIT $2 OFFSET $3`, [
      ctx.accountId,
      take,
      skip,
    ])) as RunRow[];
    const [{ count }] = (await this.db.manager.query(`SELECT count(*)::int AS count FROM ${this.schema}.import_runs WHERE account_id = $1`, [ctx.accountId])) as { count: number }[];
    return { rows: rows.map(toView), total: count };
  }

  async show(ctx: TenantScope, id: string): Promise<ImportRunView> {
    const [row] = (await this.db.manager.query(this.select('r.account_id = $1 AND r.job_id = $2'), [ctx.accountId, id])) as RunRow[];
    if (!row) throw notFound('IMPORT_RUN_NOT_FOUND', `Import run ${id} does not exist in this account.`);
    return toView(row);
  }

  /**
   * Enqueues the scheduled run of `slot` unless one was already: the account's advisory lock serialises
   * the jobs replicas, and the unique (account, slot) index stands behind it. True when this call enqueued it.
   */
  async enqueueSlot(scope: TenantScope, slot: Date): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`import-slot:${scope.accountId}`]);
      const existing = (await manager.query(`SELECT 1 FROM ${this.schema}.import_runs WHERE account_id = $1 AND slot = $2`, [scope.accountId, slot])) as unknown[];
      if (existing.length > 0) return false;
      await this.enqueue(manager, scope, { trigger: 'schedule', dryRun: false, slot, createdBy: null });
      return true;
    });
  }

  private async enqueue(
    manager: EntityManager,
    scope: TenantScope,
    run: { trigger: 'manual' | 'schedule'; dryRun: boolean; slot?: Date; createdBy: number | null },
  ): Promise<string> {
    const id = await enqueueJob(this.db, this.outbox, scope, { kind: IMPORT_JOB, params: { dry_run: run.dryRun }, createdBy: run.createdBy });
    await manager.query(`INSERT INTO ${this.schema}.import_runs (job_id, account_id, trigger, dry_run, slot) VALUES ($1, $2, $3, $4, $5)`, [
      id,
      scope.accountId,
      run.trigger,
      run.dryRun,
      run.slot ?? null,
    ]);
    return id;
  }
}
