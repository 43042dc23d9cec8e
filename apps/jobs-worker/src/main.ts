import { contextSealFor, createFileStore, isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { DataDumpExecutor } from './data-dump/data-dump.executor.js';
import type { JobExecutor } from './job-executor.js';
import type { RetryPolicy } from './job-runner.js';
import { JobsWorkerModule } from './jobs-worker.module.js';

export type { Job, JobContext, JobExecutor, JobResult } from './job-executor.js';
export { jobFileKey } from './job-executor.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './job-runner.js';

/** The job kinds this worker runs. */
export const executors = (runtime: Runtime): JobExecutor[] => [new DataDumpExecutor({ seal: contextSealFor(runtime.config), timeoutMs: runtime.config.rpcTimeoutMs })];

/** Works in the `jobs` schema, whose migrations the jobs service owns and applies. */
export const service: ServiceDefinition = { name: 'jobs-worker', schema: 'jobs', module: JobsWorkerModule, entities: [], migrations: [] };

export interface WorkerOptions {
  /** Job kinds of a test's own (a slow one, a failing one). */
  extraExecutors?: JobExecutor[];
  retry?: RetryPolicy;
}

export const start = (runtime: Runtime, options: WorkerOptions = {}) =>
  startService(
    {
      ...service,
      module: JobsWorkerModule.with([...executors(runtime), ...(options.extraExecutors ?? [])], createFileStore(runtime.config, runtime.bus, { writer: true }), options.retry),
    },
    runtime,
  );

if (isEntrypoint(import.meta.url)) await runStandalone('jobs-worker', start, { service, serveHealth: true });
