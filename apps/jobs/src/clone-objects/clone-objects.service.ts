import { Inject, Injectable } from '@nestjs/common';
import {
  CLONE_OBJECT_JOB,
  CLONE_STEP_SUBJECTS,
  type CloneCheckReply,
  type CloneObjectRequest,
  type CloneObjectState,
  type CloneObjectView,
  type JobStatus,
  type ListCloneObjectsQuery,
  pageWindow,
  type RequestContext,
} from '@lms/contracts';
import { badRequest, conflict, Database, MESSAGE_BUS, type MessageBus, notFound, Outbox, requestSigned, RUNTIME, type Runtime, signedChannel, signedRequestsTo } from '@lms/platform';
import { enqueueJob } from '../jobs/job-queue.js';

interface CloneRow {
  id: number;
  source_id: number;
  source_type: string;
  parameters: { subdomain: string; name: string };
  created_at: Date;
  status: JobStatus;
  error_messages: string[];
  result: { destination_id?: number; destination_type?: string } | null;
  updated_at: Date;
}

const STATE: Record<JobStatus, CloneObjectState> = { pending: 'pending', running: 'running', done: 'complete', failed: 'failed' };

const toView = (row: CloneRow): CloneObjectView => ({
  id: row.id,
  state: STATE[row.status],
  destination_id: row.result?.destination_id ?? null,
  destination_type: row.result?.destination_type ?? null,
  source_id: row.source_id,
  source_type: row.source_type,
  error_messages: row.error_messages,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  parameters: row.parameters,
});

/**
 * Clone objects (docs/jobs.md "Sub-account clones"): each accepted element is a `clone_object` job that
 * jobs-worker runs as a saga over identity, catalog and scheduling. A clone is refused (409) when its
 * subdomain is taken (by an account, a sub-account, or a clone not yet failed) or a clone of its source is
 * still pending or running.
 */
@Injectable()
export class CloneObjectsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  private select(where: string): string {
    const s = `"${this.db.schema}"`;
    return `SELECT c.id, c.source_id, c.source_type, c.parameters, c.created_at, j.status, j.error_messages, j.result, j.updated_at
              FROM ${s}.clone_objects c JOIN ${s}.jobs j ON j.id = c.job_id WHERE ${where}`;
  }

  async list(ctx: RequestContext, query: ListCloneObjectsQuery): Promise<{ rows: CloneObjectView[]; total: number }> {
    const { skip, take } = pageWindow(query);
    const rows = (await this.db.manager.query(`${this.select('c.account_id = $1')} ORDER BY c.id DESC LIMIT $2 OFFSET $3`, [ctx.accountId, take, skip])) as CloneRow[];
    const [{ count }] = (await this.db.manager.query(`SELECT count(*)::int AS count FROM "${this.db.schema}".clone_objects WHERE account_id = $1`, [ctx.accountId])) as { count: number }[];
    return { rows: rows.map(toView), total: count };
  }

  async show(ctx: RequestContext, id: number): Promise<CloneObjectView[]> {
    const rows = (await this.db.manager.query(this.select('c.account_id = $1 AND c.id = $2'), [ctx.accountId, id])) as CloneRow[];
    if (rows.length === 0) throw notFound('CLONE_OBJECT_NOT_FOUND', `The account has no clone object ${id}.`);
    return rows.map(toView);
  }

  async create(ctx: RequestContext, requests: CloneObjectRequest[]): Promise<CloneObjectView[]> {
    const types = [...new Set(requests.map((r) => r.source_type))];
    if (types.length > 1) {
      throw badRequest('MIXED_SOURCE_TYPES', 'Every clone object of one request must have the same source_type.', [{ field: 'clone_objects', message: `mixed source types: ${types.join(', ')}` }]);
    }
    const subdomains = requests.map((r) => r.options.subdomain);
    const twice = subdomains.find((s, i) => subdomains.indexOf(s) !== i);
    if (twice) throw conflict('SUBDOMAIN_TAKEN', `The subdomain "${twice}" is asked for twice.`);
    const sources = requests.map((r) => r.source_id);
    const again = sources.find((s, i) => sources.indexOf(s) !== i);
    if (again !== undefined) throw conflict('CLONE_RUNNING', `Sub-account ${again} is asked to be cloned twice at once.`);

    const check = await requestSigned<CloneCheckReply>(
      signedRequestsTo('identity', signedChannel(this.bus, this.runtime.config)),
      ctx,
      CLONE_STEP_SUBJECTS.identityCheck,
      { source_ids: sources, subdomains },
    );
    if (check.unknown_sources.length > 0) throw notFound('SUB_ACCOUNT_NOT_FOUND', `The account has no sub-account ${check.unknown_sources.join(', ')}.`);
    if (check.taken_subdomains.length > 0) throw conflict('SUBDOMAIN_TAKEN', `The subdomain "${check.taken_subdomains[0]}" is taken.`);

    const s = `"${this.db.schema}"`;
    const ids = await this.db.transaction(async (manager) => {
      // Clones are accepted one request at a time, so two at once cannot both take a subdomain or a source.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['clone-objects']);
      const [busy] = (await manager.query(
        `SELECT c.source_id, c.subdomain, c.account_id FROM ${s}.clone_objects c JOIN ${s}.jobs j ON j.id = c.job_id
          WHERE j.status <> 'failed' AND (c.subdomain = ANY($1::text[]) OR (c.account_id = $2 AND c.source_id = ANY($3::int[]) AND j.status IN ('pending', 'running')))
          LIMIT 1`,
        [subdomains, ctx.accountId, sources],
      )) as { source_id: number; subdomain: string; account_id: number }[];
      if (busy && subdomains.includes(busy.subdomain)) throw conflict('SUBDOMAIN_TAKEN', `The subdomain "${busy.subdomain}" is taken.`);
      if (busy) throw conflict('CLONE_RUNNING', `A clone of sub-account ${busy.source_id} is still running.`);
      const made: number[] = [];
      for (const request of requests) {
        const parameters = { subdomain: request.options.subdomain, name: request.options.name.trim() };
        const jobId = await enqueueJob(this.db, this.outbox, ctx, {
          kind: CLONE_OBJECT_JOB,
          params: { source_id: request.source_id, source_type: request.source_type, ...parameters },
          createdBy: ctx.userId,
        });
        const [row] = (await manager.query(
          `INSERT INTO ${s}.clone_objects (account_id, job_id, source_id, source_type, subdomain, parameters) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
          [ctx.accountId, jobId, request.source_id, request.source_type, parameters.subdomain, JSON.stringify(parameters)],
        )) as { id: number }[];
        made.push(row.id);
      }
      return made;
    });
    const rows = (await this.db.manager.query(`${this.select('c.account_id = $1 AND c.id = ANY($2::int[])')} ORDER BY c.id`, [ctx.accountId, ids])) as CloneRow[];
    return rows.map(toView);
  }
}
