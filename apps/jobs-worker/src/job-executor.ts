import type { FileStore, Logger, MessageBus } from '@lms/platform';

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
  /** Records progress (0-100) for the job's readers; cheap to call often. */
  progress(percent: number): Promise<void>;
}

/** What a finished job leaves: its file, if it makes one. */
export interface JobResult {
  file?: { key: string; name: string; size: number };
}

/**
 * Runs one kind of job. `run` may be called again for the same job after a worker died mid-run, so it
 * writes its file at a key derived from the job id (a second run replaces it) and has no other side effect.
 */
export interface JobExecutor {
  kind: string;
  run(job: Job, context: JobContext): Promise<JobResult>;
}

export const JOB_EXECUTORS = Symbol('JOB_EXECUTORS');
export const FILE_STORE = Symbol('FILE_STORE');

/** The key of a job's file: one per job, so every attempt writes the same one. */
export const jobFileKey = (job: Pick<Job, 'id'>, name: string): string => `jobs/${job.id}/${name}`;
