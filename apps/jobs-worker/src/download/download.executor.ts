import {
  DIRECTORY_SUBJECTS,
  type DirectoryUsersReply,
  DOWNLOAD_JOB,
  DOWNLOAD_SOURCES,
  type DownloadJobParams,
  type ExportPage,
  type RequestContext,
} from '@lms/contracts';
import { type ContextSeal, type MessageBus, reportLine, requestSigned, type SignedRequestOptions, signedRequestsTo } from '@lms/platform';
import { isRefusal, type Job, type JobContext, type JobExecutor, JobFailed, jobFileKey, type JobResult } from '../job-executor.js';
import { pagesAhead } from '../pages-ahead.js';

/** Rows asked per page; with user names added, one directory look-up (at most 1,000 ids) per page. */
export const DOWNLOAD_PAGE_ROWS = 1_000;

export interface DownloadOptions {
  seal: ContextSeal;
  timeoutMs: number;
}

/** Columns added after `user_id` when a source names users by id only. */
const USER_COLUMNS = ['user_uid', 'user_name', 'user_email'];

/**
 * A download (docs/jobs.md "Downloads"): one CSV, its rows asked page by page from the service that owns
 * them (DOWNLOAD_SOURCES) with the creator's context, so the service applies the creator's account and
 * permissions again, and streamed into the file store: one page is held at a time (the next is asked for
 * while it is written). Same CSV conventions as the data dump: header row, RFC 4180 quoting, UTF-8, `\n`.
 */
export class DownloadExecutor implements JobExecutor {
  readonly kind = DOWNLOAD_JOB;

  constructor(private readonly options: DownloadOptions) {}

  async run(job: Job, context: JobContext): Promise<JobResult> {
    const params = job.params as unknown as DownloadJobParams;
    const source = DOWNLOAD_SOURCES[params.download_type];
    if (!source) throw new Error(`unknown download type ${String(params.download_type)}`);
    const ctx: RequestContext = { requestId: `job-${job.id}`, accountId: job.accountId, subAccountId: null, userId: job.createdBy ?? 0, roles: params.roles };
    const name = source.fileName(params.info);
    const key = jobFileKey(job, name);
    try {
      const stored = await context.files.put(key, this.csv(context, ctx, params, source.withUsers === true));
      return { file: { key, name, size: stored.size } };
    } catch (err) {
      // The source refused (what the download names was deleted, or its creator may no longer read it since it
      // was accepted): no retry changes that, so the download fails at once, saying why.
      if (isRefusal(err)) throw new JobFailed(`${err.code}: ${err.detail ?? err.title}`);
      throw err;
    }
  }

  private async *csv(context: JobContext, ctx: RequestContext, params: DownloadJobParams, withUsers: boolean): AsyncGenerator<Uint8Array> {
    const source = DOWNLOAD_SOURCES[params.download_type];
    const ask = this.ask(context.bus, source.service);
    const pages = pagesAhead((after?: string) =>
      requestSigned<ExportPage>(ask, ctx, source.subject, { ...params.info, limit: DOWNLOAD_PAGE_ROWS, ...(after !== undefined ? { after } : {}) }),
    );
    let header = true;
    let written = 0;
    for await (const page of pages) {
      const { columns, rows } = withUsers ? await this.withUsers(context.bus, ctx, page) : page;
      let text = header ? reportLine(columns) : '';
      header = false;
      for (const row of rows) text += reportLine(row);
      yield Buffer.from(text, 'utf8');
      // The total is unknown until the last page: progress creeps towards 99 (100 when done).
      written += 1;
      await context.progress(Math.min(99, 100 - 100 / (written + 1)));
    }
  }

  /** The page with each user's uid, name and e-mail after `user_id`, asked of identity for the page's users. */
  private async withUsers(bus: MessageBus, ctx: RequestContext, page: ExportPage): Promise<{ columns: string[]; rows: unknown[][] }> {
    const at = page.columns.indexOf('user_id');
    if (at < 0) return page;
    const ids = [...new Set(page.rows.map((row) => row[at]).filter((id): id is number => Number.isInteger(id)))];
    const users = ids.length
      ? new Map((await requestSigned<DirectoryUsersReply>(this.ask(bus, 'identity'), ctx, DIRECTORY_SUBJECTS.users, { ids })).users.map((u) => [u.id, u]))
      : new Map();
    const columns = [...page.columns.slice(0, at + 1), ...USER_COLUMNS, ...page.columns.slice(at + 1)];
    const rows = page.rows.map((row) => {
      const user = users.get(row[at] as number);
      return [...row.slice(0, at + 1), user?.uid ?? null, user?.name ?? null, user?.email ?? null, ...row.slice(at + 1)];
    });
    return { columns, rows };
  }

  private ask(bus: MessageBus, service: string): SignedRequestOptions {
    return signedRequestsTo(service, { bus, seal: this.options.seal, timeoutMs: this.options.timeoutMs });
  }
}
