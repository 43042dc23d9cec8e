/** A job was recorded `pending` in the jobs schema; `jobs-worker` runs it (docs/jobs.md). */
export const JOB_REQUESTED_EVENT = 'jobs.job.requested';

/** The durable consumer every `jobs-worker` replica shares: the work queue KEDA scales on. */
export const JOBS_WORKER_CONSUMER = 'jobs-worker';

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

/** Data of a JOB_REQUESTED_EVENT; the job's kind and parameters are in its row. */
export interface JobRequestedData {
  job_id: string;
  kind: string;
}

/** The job kind of a data dump. */
export const DATA_DUMP_JOB = 'data_dump';
/** The name a data dump downloads as. */
export const DATA_DUMP_FILE_NAME = 'data_dump.zip';
