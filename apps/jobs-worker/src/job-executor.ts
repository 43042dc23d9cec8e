import { type Database, DomainError, type FileStore, type Logger, type MessageBus } from '@lms/platform';

/** A job as the worker reads it from the jobs schema. */
export interface Job {
  id: string;
  accountId: number;
  kind: string;
  params: Record<string, unknown>;
  createdBy: number | null;
  /** This attempt's number, from 1. */
  attempt: number;
}

export interface JobContext {
  bus: MessageBus;
  files: FileStore;
  logger: Logger;
  /** The jobs schema, for an executor that records more than a file (an import run's outcome). */
  db: Database;
  /** Records progress (0-100) for the job's readers; cheap to call often. */
  progress(percent: number): Promise<void>;
}

/** What a finished job leaves: its file, if it makes one, and what its readers are told (`jobs.result`). */
export interface JobResult {
  file?: { key: string; name: string; size: number };
  result?: Record<string, unknown>;
}

/**
 * A failure no retry can mend (a service refused the work): the job ends `failed` at once with this message,
 * instead of being retried. The executor has already undone what it must.
 */
export class JobFailed extends Error {}

/** A service's answer that no retry changes: it looked at the request and refused it (4xx). Timeouts, 503s and 500s are retried. */
export const isRefusal = (err: unknown): err is DomainError => err instanceof DomainError && err.status < 500;

/**
 * Runs one kind of job. `run` may be called again for the same job after a worker died mid-run, so it
 * writes its file at `jobFileKey` (its attempt's own) and has no other side effect.
 */
export interface JobExecutor {
  kind: string;
  run(job: Job, context: JobContext): Promise<JobResult>;
  /**
   * Called once when the job is given up after its last attempt (failed or lost), before it is marked
   * `failed`: an executor whose attempts have effects elsewhere undoes them here.
   */
  abandon?(job: Job, context: JobContext): Promise<void>;
}

export const JOB_EXECUTORS = Symbol('JOB_EXECUTORS');
export const FILE_STORE = Symbol('FILE_STORE');

/**
 * The key of an attempt's file (`jobs/<job id>/<attempt>/<name>`). Each attempt writes its own, so one that
 * lost its lease and lives on cannot replace the file a later attempt recorded; the runner removes the
 * files of attempts that did not record theirs.
 */
export const jobFileKey = (job: Pick<Job, 'id' | 'attempt'>, name: string): string => `jobs/${job.id}/${job.attempt}/${name}`;
