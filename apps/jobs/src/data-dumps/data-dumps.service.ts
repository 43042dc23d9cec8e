import { Inject, Injectable } from '@nestjs/common';
import {
  DATA_DUMP_FILE_NAME,
  DATA_DUMP_JOB,
  type DataDumpStatus,
  type DataDumpView,
  DUMP_SERVICES,
  dumpSubjects,
  type DumpModelsReply,
  type JobStatus,
  type RequestContext,
} from '@lms/contracts';
import { badRequest, Database, MESSAGE_BUS, type MessageBus, notFound, Outbox, requestSigned, RUNTIME, type Runtime, signedChannel, signedRequestsTo, signFileUrl } from '@lms/platform';
import { enqueueJob } from '../jobs/job-queue.js';

interface DumpRow {
  id: string;
  status: JobStatus;
  created_at: Date;
  file_key: string | null;
}

const STATUS: Record<JobStatus, DataDumpStatus> = { pending: 'pending', running: 'pending', done: 'complete', failed: 'failed' };

const toView = (row: DumpRow): DataDumpView => ({ status: STATUS[row.status], date: row.created_at.toISOString() });

/**
 * The account's data dump (docs/jobs.md). One at a time: a new one replaces the previous when it is
 * complete, so the last complete dump stays downloadable while its successor is pending. Each dump has its
 * own file; a replaced one goes with its file in the retention sweep (jobs-worker), once no signed URL of it
 * can still be valid.
 */
@Injectable()
export class DataDumpsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  private get table(): string {
    return `"${this.db.schema}".jobs`;
  }

  /** The current dump (the newest), if any. */
  async list(ctx: RequestContext): Promise<DataDumpView[]> {
    const rows = (await this.db.manager.query(
      `SELECT id, status, created_at, file_key FROM ${this.table} WHERE account_id = $1 AND kind = $2 ORDER BY created_at DESC LIMIT 1`,
      [ctx.accountId, DATA_DUMP_JOB],
    )) as DumpRow[];
    return rows.map(toView);
  }

  async create(ctx: RequestContext, only: string[] | undefined): Promise<DataDumpView[]> {
    if (only !== undefined) {
      const known = new Set(await this.modelNames(ctx));
      const unknown = only.map((name, i) => ({ name, i })).filter(({ name }) => !known.has(name));
      if (unknown.length > 0) {
        throw badRequest('UNKNOWN_MODEL', 'A dump holds only the models model_names lists.', unknown.map(({ name, i }) => ({ field: `only[${i}]`, message: `unknown model '${name}'` })));
      }
    }
    const [row] = await this.db.transaction(async (manager) => {
      // Serialises dumps of one account, so two POSTs at once leave one current dump.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`data-dump:${ctx.accountId}`]);
      // Earlier dumps not complete are forgotten (one still running removes its file when it ends: job-runner.ts).
      // Complete ones, with their files, are the retention sweep's.
      await manager.query(`DELETE FROM ${this.table} WHERE account_id = $1 AND kind = $2 AND status <> 'done'`, [ctx.accountId, DATA_DUMP_JOB]);
      const id = await enqueueJob(this.db, this.outbox, ctx, { kind: DATA_DUMP_JOB, params: only ? { only } : {}, createdBy: ctx.userId });
      // Read while the lock is held: once it is released, the next POST deletes this dump if it is not complete.
      return (await manager.query(`SELECT id, status, created_at, file_key FROM ${this.table} WHERE id = $1`, [id])) as DumpRow[];
    });
    return [toView(row)];
  }

  /** The models of every service taking part in the dump, in dump order. */
  async modelNames(ctx: RequestContext): Promise<string[]> {
    const names: string[] = [];
    for (const service of DUMP_SERVICES) {
      const options = signedRequestsTo(service, signedChannel(this.bus, this.runtime.config));
      names.push(...(await requestSigned<DumpModelsReply>(options, ctx, dumpSubjects(service).models, {})).models);
    }
    return names;
  }

  /** A fresh signed URL of the last complete dump. */
  async downloadUrl(ctx: RequestContext): Promise<string> {
    const [row] = (await this.db.manager.query(
      `SELECT id, status, created_at, file_key FROM ${this.table} WHERE account_id = $1 AND kind = $2 AND status = 'done' ORDER BY created_at DESC LIMIT 1`,
      [ctx.accountId, DATA_DUMP_JOB],
    )) as DumpRow[];
    if (!row?.file_key) throw notFound('DATA_DUMP_NOT_FOUND', 'The account has no complete data dump: POST /api/admin/data_dumps makes one.');
    return signFileUrl(this.runtime.config.fileUrlSigningKey, row.file_key, DATA_DUMP_FILE_NAME);
  }
}
