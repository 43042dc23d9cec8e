import { Inject, Injectable } from '@nestjs/common';
import {
  type CreateDownloadBody,
  DOWNLOAD_JOB,
  DOWNLOAD_SOURCES,
  DOWNLOAD_TYPES,
  type DownloadJobParams,
  type DownloadType,
  type DownloadView,
  type JobStatus,
  type RequestContext,
  UUID,
} from '@lms/contracts';
import { Database, DomainError, forbidden, MESSAGE_BUS, type MessageBus, notFound, Outbox, requestSigned, RUNTIME, type Runtime, signedChannel, signedRequestsTo, signFileUrl, unprocessable } from '@lms/platform';
import { enqueueJob } from '../jobs/job-queue.js';
import { downloadInfo } from './download-info.js';

interface DownloadRow {
  id: string;
  status: JobStatus;
  params: DownloadJobParams;
  created_by: number | null;
  file_key: string | null;
  file_name: string | null;
}

const toView = (row: DownloadRow): DownloadView => ({
  id: row.id,
  download_type: row.params.download_type,
  user_id: String(row.created_by ?? ''),
  state: row.status,
  url: row.status === 'done' ? `/api/downloads/${row.id}/file` : null,
});

const isDownloadType = (type: string): type is DownloadType => (DOWNLOAD_TYPES as readonly string[]).includes(type);
const admits = (type: DownloadType, ctx: RequestContext) => DOWNLOAD_SOURCES[type].roles.some((role) => ctx.roles.includes(role));

/**
 * Downloads (docs/jobs.md "Downloads"): a `download` job per request, run by jobs-worker, which writes the
 * CSV to the file store; the creator alone reads it, at a fresh signed URL each time.
 */
@Injectable()
export class DownloadsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  async create(ctx: RequestContext, body: CreateDownloadBody): Promise<DownloadView> {
    const type = body.download.download_type;
    if (!isDownloadType(type)) {
      throw unprocessable('UNKNOWN_DOWNLOAD_TYPE', `The download was not created: the types are ${DOWNLOAD_TYPES.join(', ')}.`, [{ field: 'download.download_type', message: `unknown download type '${type}'` }]);
    }
    if (!admits(type, ctx)) throw forbidden('DOWNLOAD_FORBIDDEN', `You may not download ${type}.`);
    const info = downloadInfo(type, body.download.info ?? {});
    await this.checkSource(ctx, type, info);
    const params: DownloadJobParams = { download_type: type, info, roles: [...ctx.roles] };
    const id = await enqueueJob(this.db, this.outbox, ctx, { kind: DOWNLOAD_JOB, params: params as unknown as Record<string, unknown>, createdBy: ctx.userId });
    // As recorded: the worker may already have taken it, but the answer describes what this request made.
    return toView({ id, status: 'pending', params, created_by: ctx.userId, file_key: null, file_name: null });
  }

  async show(ctx: RequestContext, id: string): Promise<DownloadView> {
    return toView(await this.own(ctx, id));
  }

  /** A fresh signed URL of a finished download's file. */
  async fileUrl(ctx: RequestContext, id: string): Promise<string> {
    const row = await this.own(ctx, id);
    if (row.status !== 'done' || !row.file_key || !row.file_name) throw notFound('DOWNLOAD_NOT_READY', `The download is ${row.status}: its file exists once it is done.`);
    return signFileUrl(this.runtime.config.fileUrlSigningKey, row.file_key, row.file_name);
  }

  /**
   * Asks the type's row source for one row with the creator's context, so an unknown course or session
   * (404 there) is a 422 here and a course the author does not author is a 403, before any job exists.
   */
  private async checkSource(ctx: RequestContext, type: DownloadType, info: Record<string, unknown>): Promise<void> {
    const source = DOWNLOAD_SOURCES[type];
    const options = signedRequestsTo(source.service, signedChannel(this.bus, this.runtime.config));
    try {
      await requestSigned(options, ctx, source.subject, { ...info, limit: 1 });
    } catch (err) {
      if (err instanceof DomainError && err.status === 404) {
        throw unprocessable('INVALID_DOWNLOAD_INFO', `The download was not created: ${err.detail ?? 'what its info names does not exist'}`, [{ field: `download.info.${Object.keys(info)[0] ?? 'info'}`, message: 'not found' }]);
      }
      throw err;
    }
  }

  /** The caller's own download: another account's (or no such id) is a 404, another user's a 403. */
  private async own(ctx: RequestContext, id: string): Promise<DownloadRow> {
    const row = UUID.test(id) ? await this.find(ctx, id) : undefined;
    if (!row) throw notFound('DOWNLOAD_NOT_FOUND', `No download ${id}.`);
    if (row.created_by !== ctx.userId) throw forbidden('DOWNLOAD_FORBIDDEN', 'A download is visible only to the user who asked for it.');
    if (!admits(row.params.download_type, ctx)) throw forbidden('DOWNLOAD_FORBIDDEN', `You may no longer download ${row.params.download_type}.`);
    return row;
  }

  private async find(ctx: RequestContext, id: string): Promise<DownloadRow | undefined> {
    const rows = (await this.db.manager.query(
      `SELECT id, status, params, created_by, file_key, file_name FROM "${this.db.schema}".jobs WHERE account_id = $1 AND kind = $2 AND id = $3`,
      [ctx.accountId, DOWNLOAD_JOB, id],
    )) as DownloadRow[];
    return rows[0];
  }
}
