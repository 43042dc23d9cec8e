import {
  IMPORT_JOB,
  type ImportChange,
  type ImportRowError,
  type ImportRowInput,
  type ImportRowOutcome,
  type ImportRowsReply,
  type ImportRunCounts,
  type ImportSourceReply,
  type RequestContext,
  unsafeInput,
  USER_IMPORT_SUBJECTS,
  systemContext,
} from '@lms/contracts';
import { type ContextSeal, type Database, type MessageBus, requestSigned, type SignedRequestOptions, signedRequestsTo } from '@lms/platform';
import type { Job, JobContext, JobExecutor, JobResult } from '../job-executor.js';
import type { CsvImportConfig } from './csv-import.config.js';
import { fetchCsv, type Resolver } from './csv-fetch.js';
import { csvRows } from './csv-rows.js';
import { ImportFailure } from './import-failure.js';

/** Rows identity takes per request (well inside the RPC timeout). */
export const IMPORT_BATCH_ROWS = 100;
/**
 * The most a batch's rows may weigh (their JSON): a request must fit one NATS message (1 MiB by default) with its
 * context. A row heavier than this alone fails without being sent (no field of a user takes that much).
 */
export const IMPORT_BATCH_BYTES = 256 * 1024;
/** What a run keeps: the first errors and the first changes. */
export const MAX_RUN_ERRORS = 50;
export const MAX_RUN_CHANGES = 100;

export interface CsvImportOptions {
  seal: ContextSeal;
  timeoutMs: number;
  config: CsvImportConfig;
  /** DNS, for tests of the address check; the system's resolver otherwise. */
  resolve?: Resolver;
}

interface Outcome {
  rows: number | null;
  counts: ImportRunCounts | null;
  errors: ImportRowError[];
  changes: ImportChange[];
  error: string | null;
}

/**
 * An import run (docs/jobs.md "Scheduled CSV imports"): asks identity for the profile's source (identity
 * alone decrypts the password), fetches the file under the address, size and time limits, maps its
 * columns, and sends the rows to identity in batches, which applies them with the users API's rules.
 * Every run first goes through the file as a dry run: the share guard (IMPORT_MAX_CHANGE_SHARE) then
 * stops a file that would change too many users before anything changes; a dry run stops there.
 */
export class CsvImportExecutor implements JobExecutor {
  readonly kind = IMPORT_JOB;

  constructor(private readonly options: CsvImportOptions) {}

  async run(job: Job, context: JobContext): Promise<JobResult> {
    // An earlier attempt recorded the run's outcome and was lost before its job was marked done: that outcome
    // stands. A second pass would find its rows done and record them all unchanged over it.
    if (await recorded(context.db, job)) return {};
    const ctx = systemContext(job.accountId, `job-${job.id}`, job.createdBy ?? 0);
    const dryRun = job.params.dry_run === true;
    let outcome: Outcome;
    try {
      outcome = await this.importFile(ctx, dryRun, context);
    } catch (err) {
      if (!(err instanceof ImportFailure)) throw err; // passing: the job is retried
      outcome = { rows: null, counts: null, errors: [], changes: [], error: err.message };
    }
    await record(context.db, job, outcome);
    return {};
  }

  private async importFile(ctx: RequestContext, dryRun: boolean, context: JobContext): Promise<Outcome> {
    const source = await requestSigned<ImportSourceReply>(this.ask(context.bus), ctx, USER_IMPORT_SUBJECTS.source, {});
    if (!source.csv_url) throw new ImportFailure('the import profile has no csv_url');
    if (!source.columns.some((c) => 'field' in c && c.field === 'uid')) throw new ImportFailure('the import profile maps no column to uid, the primary field');
    const { config } = this.options;
    const file = await fetchCsv(source.csv_url, { user: source.csv_user, password: source.csv_password }, {
      allowPrivateAddresses: config.allowPrivateAddresses,
      maxBytes: config.maxBytes,
      timeoutMs: config.fetchTimeoutMs,
      resolve: this.options.resolve,
    });
    const rows = csvRows(file, source);
    await context.progress(10);

    const planned = await this.send(ctx, context, rows, true, 10, dryRun ? 90 : 50);
    const summary = summarize(rows.length, planned.outcomes);
    const changing = summary.counts.created + summary.counts.updated;
    const limit = Math.max(config.maxChangeFloor, Math.floor(config.maxChangeShare * planned.accountUsers));
    if (changing > limit) {
      const error = `the file would create or update ${changing} users, more than ${limit} (IMPORT_MAX_CHANGE_SHARE ${config.maxChangeShare} of the account's ${planned.accountUsers} users): nothing was changed`;
      return { ...summary, error };
    }
    if (dryRun) return summary;
    const applied = await this.send(ctx, context, rows, false, 50, 99);
    return summarize(rows.length, applied.outcomes);
  }

  private async send(ctx: RequestContext, context: JobContext, rows: ImportRowInput[], dryRun: boolean, from: number, to: number) {
    const outcomes: ImportRowOutcome[] = [];
    let accountUsers = 0;
    let done = 0;
    for (const batch of importBatches(rows)) {
      // A row identity would refuse whole batches for (a NUL character in a cell, a row past IMPORT_BATCH_BYTES) fails here, unsent.
      const refused = batch.flatMap((row) => refusedRow(row) ?? []);
      const sent = batch.filter((row) => !refused.some((r) => r.line === row.line));
      const reply = await requestSigned<ImportRowsReply>(this.ask(context.bus), ctx, USER_IMPORT_SUBJECTS.rows, { dry_run: dryRun, rows: sent });
      outcomes.push(...[...reply.outcomes, ...refused].sort((a, b) => a.line - b.line));
      accountUsers = reply.account_users;
      done += batch.length;
      await context.progress(from + ((to - from) * done) / Math.max(rows.length, 1));
    }
    return { outcomes, accountUsers };
  }

  private ask(bus: MessageBus): SignedRequestOptions {
    return signedRequestsTo('identity', { bus, seal: this.options.seal, timeoutMs: this.options.timeoutMs });
  }
}

const weight = (row: ImportRowInput) => Buffer.byteLength(JSON.stringify(row));

/** The rows in batches of at most IMPORT_BATCH_ROWS rows and IMPORT_BATCH_BYTES, in order; at least one (empty without rows: it still counts the users). */
export function importBatches(rows: ImportRowInput[]): ImportRowInput[][] {
  const batches: ImportRowInput[][] = [[]];
  let bytes = 0;
  for (const row of rows) {
    const size = weight(row);
    const current = batches[batches.length - 1];
    if (current.length > 0 && (current.length >= IMPORT_BATCH_ROWS || bytes + size > IMPORT_BATCH_BYTES)) {
      batches.push([row]);
      bytes = size;
    } else {
      current.push(row);
      bytes += size;
    }
  }
  return batches;
}

/** The row's outcome when identity would refuse a batch holding it (a text `unsafeInput` refuses, a row past IMPORT_BATCH_BYTES), else undefined. */
function refusedRow(row: ImportRowInput): ImportRowOutcome | undefined {
  const problems = weight(row) > IMPORT_BATCH_BYTES ? [{ field: null, message: `the row is larger than ${IMPORT_BATCH_BYTES / 1024} KiB` }] : unsafeInput(row.user);
  if (problems.length === 0) return undefined;
  const uid = typeof row.user.uid === 'string' && !problems.some((p) => p.field === 'uid') ? row.user.uid : null;
  return { line: row.line, uid, outcome: 'failed', errors: problems.map((p) => ({ field: p.field, message: p.message })) };
}

function summarize(rows: number, outcomes: ImportRowOutcome[]): Outcome & { counts: ImportRunCounts } {
  const counts: ImportRunCounts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  const errors: ImportRowError[] = [];
  const changes: ImportChange[] = [];
  for (const o of outcomes) {
    counts[o.outcome] += 1;
    if (o.outcome === 'failed') for (const e of o.errors ?? []) if (errors.length < MAX_RUN_ERRORS) errors.push({ line: o.line, field: e.field, message: e.message });
    if ((o.outcome === 'created' || o.outcome === 'updated') && changes.length < MAX_RUN_CHANGES) {
      changes.push({ line: o.line, uid: o.uid ?? '', action: o.outcome === 'created' ? 'create' : 'update', fields: o.fields ?? [] });
    }
  }
  return { rows, counts, errors, changes, error: null };
}

/** Only while this attempt owns the job: a stalled attempt that lost its lease must not overwrite a later one's outcome. */
/** Whether the run's outcome is written already (`record`: its counts, or the error it failed with). */
async function recorded(db: Database, job: Job): Promise<boolean> {
  const rows = (await db.manager.query(
    `SELECT 1 FROM "${db.schema}".import_runs WHERE job_id = $1 AND account_id = $2 AND (counts IS NOT NULL OR error IS NOT NULL)`,
    [job.id, job.accountId],
  )) as unknown[];
  return rows.length > 0;
}

async function record(db: Database, job: Job, outcome: Outcome): Promise<void> {
  const schema = `"${db.schema}"`;
  await db.manager.query(
    `UPDATE ${schema}.import_runs r SET rows = $4, counts = $5, errors = $6, changes = $7, error = $8
       FROM ${schema}.jobs j WHERE r.job_id = $1 AND r.account_id = $2 AND j.id = r.job_id AND j.attempts = $3 AND j.status = 'running'`,
    [job.id, job.accountId, job.attempt, outcome.rows, JSON.stringify(outcome.counts), JSON.stringify(outcome.errors), JSON.stringify(outcome.changes), outcome.error],
  );
}
