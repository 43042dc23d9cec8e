import { randomUUID } from 'node:crypto';
import { JOB_REQUESTED_EVENT, type JobRequestedData } from '@lms/contracts';
import type { Database, Outbox, TenantScope } from '@lms/platform';

export interface NewJob {
  kind: string;
  params?: Record<string, unknown>;
  createdBy?: number | null;
}

/**
 * Records a job `pending` and its JOB_REQUESTED_EVENT in one transaction (the caller's, when it has one):
 * the job exists if and only if its work was queued, and the outbox relay hands it to the workers.
 */
export async function enqueueJob(db: Database, outbox: Outbox, scope: TenantScope, job: NewJob): Promise<string> {
  const id = randomUUID();
  await db.transaction(async (manager) => {
    await manager.query(`INSERT INTO "${db.schema}".jobs (id, account_id, kind, params, created_by) VALUES ($1, $2, $3, $4, $5)`, [
      id,
      scope.accountId,
      job.kind,
      JSON.stringify(job.params ?? {}),
      job.createdBy ?? null,
    ]);
    await outbox.add<JobRequestedData>(scope, JOB_REQUESTED_EVENT, { job_id: id, kind: job.kind }, id);
  });
  return id;
}
