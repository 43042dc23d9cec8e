import { DATA_DUMP_JOB, DATA_DUMP_FILE_NAME, DUMP_SERVICES, dumpSubjects, type DumpCsvReply, type DumpModelsReply, type RequestContext, systemContext } from '@lms/contracts';
import { type ContextSeal, csvLine, type MessageBus, requestSigned, type SignedRequestOptions, signedRequestsTo } from '@lms/platform';
import { type Job, type JobContext, type JobExecutor, jobFileKey, type JobResult } from '../job-executor.js';
import { pagesAhead } from '../pages-ahead.js';
import { zipStream, type ZipEntry } from './zip-stream.js';

/** Rows asked per page; a service answers fewer when a page grows past its byte cap. */
export const DUMP_PAGE_ROWS = 5_000;

export interface DataDumpOptions {
  seal: ContextSeal;
  timeoutMs: number;
}

/**
 * A data dump (docs/jobs.md): a zip holding `<model>.csv` for each model every service in DUMP_SERVICES
 * exports (or the `only` ones), each streamed page by page from its service over the bus (`<service>.dump.rows`)
 * straight into the archive and the file store, so memory stays flat whatever the account's size. The
 * services scope every page to the job's account from the sealed caller context: no other account's row
 * can be asked for.
 */
export class DataDumpExecutor implements JobExecutor {
  readonly kind = DATA_DUMP_JOB;

  constructor(private readonly options: DataDumpOptions) {}

  async run(job: Job, context: JobContext): Promise<JobResult> {
    const ctx = systemContext(job.accountId, `job-${job.id}`, job.createdBy ?? 0);
    const only = Array.isArray(job.params.only) ? new Set(job.params.only as string[]) : undefined;
    const parts: { service: string; model: string }[] = [];
    for (const service of DUMP_SERVICES) {
      const { models } = await requestSigned<DumpModelsReply>(this.ask(context.bus, service), ctx, dumpSubjects(service).models, {});
      for (const model of models) if (!only || only.has(model)) parts.push({ service, model });
    }
    let done = 0;
    const entries = (async function* (self: DataDumpExecutor): AsyncGenerator<ZipEntry> {
      for (const part of parts) {
        yield { name: `${part.model}.csv`, data: self.csv(context.bus, ctx, part.service, part.model) };
        done += 1;
        await context.progress((done * 100) / Math.max(parts.length, 1));
      }
    })(this);
    // The job's own key: a late run of a replaced dump can never write over the file of the one that replaced it.
    const key = jobFileKey(job, DATA_DUMP_FILE_NAME);
    const stored = await context.files.put(key, zipStream(entries));
    return { file: { key, name: DATA_DUMP_FILE_NAME, size: stored.size } };
  }

  /**
   * One model as CSV: its header, then its rows, a page at a time, each page written as CSV by the service that
   * read it, one page asked ahead.
   */
  private async *csv(bus: MessageBus, ctx: RequestContext, service: string, model: string): AsyncGenerator<Uint8Array> {
    const options = this.ask(bus, service);
    const pages = pagesAhead((after?: string[]) =>
      requestSigned<DumpCsvReply>(options, ctx, dumpSubjects(service).rows, { model, limit: DUMP_PAGE_ROWS, format: 'csv', ...(after ? { after } : {}) }),
    );
    let header = true;
    for await (const page of pages) {
      if (header) yield Buffer.from(csvLine(page.columns), 'utf8');
      header = false;
      yield Buffer.from(page.csv, 'utf8');
    }
  }

  private ask(bus: MessageBus, service: string): SignedRequestOptions {
    return signedRequestsTo(service, { bus, seal: this.options.seal, timeoutMs: this.options.timeoutMs });
  }
}
