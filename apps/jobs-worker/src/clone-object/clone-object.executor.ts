import { CLONE_OBJECT_JOB, CLONE_STEP_SUBJECTS as S, type CloneCopyReply, type CloneSubAccountReply, type CloneUndoReply, type RequestContext, systemContext } from '@lms/contracts';
import { type ContextSeal, type MessageBus, requestSigned, signedRequestsTo } from '@lms/platform';
import { isRefusal, type Job, type JobContext, type JobExecutor, JobFailed, type JobResult } from '../job-executor.js';

export interface CloneObjectOptions {
  seal: ContextSeal;
  /** The bus's RPC timeout; a step is given at least CLONE_STEP_TIMEOUT_MS. */
  timeoutMs: number;
}

/**
 * A step copies a whole sub-account's courses or sessions in one transaction, which takes as long as the
 * source is large: far longer than an API request may (the fault suite's 3,000 courses under load took
 * more than the 2 s RPC timeout, every attempt timed out and the clone failed). A background job can wait.
 */
export const CLONE_STEP_TIMEOUT_MS = 120_000;

interface CloneParams {
  source_id: number;
  subdomain: string;
  name: string;
}

/**
 * A sub-account clone (docs/jobs.md "Sub-account clones"), a saga over the bus keyed by the job id:
 * identity makes the new sub-account (hidden), catalog and scheduling copy what the source owns into it,
 * identity shows it. Every step is idempotent by the clone id, so an attempt after a lost worker or a
 * transient failure runs the same steps again and each answers what it did the first time. A refused step
 * compensates every step before it (scheduling, catalog, then identity undo theirs) and fails the job at
 * once with the refusal; a job given up after its last attempt is compensated the same way (`abandon`).
 */
export class CloneObjectExecutor implements JobExecutor {
  readonly kind = CLONE_OBJECT_JOB;

  constructor(private readonly options: CloneObjectOptions) {}

  async run(job: Job, context: JobContext): Promise<JobResult> {
    const params = job.params as unknown as CloneParams;
    const ctx = this.contextOf(job);
    const ask = <T>(service: string, subject: string, body: object) => requestSigned<T>(this.ask(context.bus, service), ctx, subject, body);
    try {
      const made = await ask<CloneSubAccountReply>('identity', S.identityCreate, { clone_id: job.id, source_id: params.source_id, subdomain: params.subdomain, name: params.name });
      await context.progress(25);
      const copy = { clone_id: job.id, source_id: params.source_id, destination_id: made.sub_account_id, source_is_root: made.source_is_root };
      const catalog = await ask<CloneCopyReply>('catalog', S.catalogCopy, copy);
      await context.progress(60);
      const scheduling = await ask<CloneCopyReply>('scheduling', S.schedulingCopy, copy);
      await context.progress(90);
      await ask<CloneSubAccountReply>('identity', S.identityActivate, { clone_id: job.id });
      context.logger.info({ copied: { ...catalog.copied, ...scheduling.copied } }, 'sub-account cloned');
      return { result: { destination_id: made.sub_account_id, destination_type: 'SubAccount', copied: { ...catalog.copied, ...scheduling.copied } } };
    } catch (err) {
      if (!isRefusal(err)) throw err; // retried: the steps done stay done, the next attempt resumes
      await this.compensate(job, context);
      throw new JobFailed(`${err.code}: ${err.detail ?? err.title}`);
    }
  }

  async abandon(job: Job, context: JobContext): Promise<void> {
    await this.compensate(job, context);
  }

  /** Undoes every step, last first; each undo is harmless for a step never done, and refuses that step from then on. */
  private async compensate(job: Job, context: JobContext): Promise<void> {
    const ctx = this.contextOf(job);
    for (const [service, subject] of [
      ['scheduling', S.schedulingUndo],
      ['catalog', S.catalogUndo],
      ['identity', S.identityUndo],
    ] as const) {
      const { removed } = await requestSigned<CloneUndoReply>(this.ask(context.bus, service), ctx, subject, { clone_id: job.id });
      context.logger.info({ service, removed }, 'clone step compensated');
    }
  }

  private contextOf(job: Job): RequestContext {
    return systemContext(job.accountId, `job-${job.id}`, job.createdBy ?? 0);
  }

  private ask(bus: MessageBus, service: string) {
    return signedRequestsTo(service, { bus, seal: this.options.seal, timeoutMs: Math.max(this.options.timeoutMs, CLONE_STEP_TIMEOUT_MS) });
  }
}
