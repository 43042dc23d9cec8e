import { contextSealFor, createFileStore, isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { CloneObjectExecutor } from './clone-object/clone-object.executor.js';
import { DataDumpExecutor } from './data-dump/data-dump.executor.js';
import { DownloadExecutor } from './download/download.executor.js';
import { csvImportConfig } from './csv-import/csv-import.config.js';
import { CsvImportExecutor } from './csv-import/csv-import.executor.js';
import type { JobExecutor } from './job-executor.js';
import type { RetryPolicy } from './job-runner.js';
import { JobsWorkerModule } from './jobs-worker.module.js';
import { EmailSender, SlackSender } from './notifications/delivery-channels.js';
import { notificationConfig } from './notifications/notification.config.js';
import type { NotificationPolicy } from './notifications/notification-dispatcher.js';

export type { Job, JobContext, JobExecutor, JobResult } from './job-executor.js';
export { jobFileKey } from './job-executor.js';
export { CloneObjectExecutor } from './clone-object/clone-object.executor.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './job-runner.js';

/** The job kinds this worker runs. */
export const executors = (runtime: Runtime): JobExecutor[] => [
  new DataDumpExecutor({ seal: contextSealFor(runtime.config), timeoutMs: runtime.config.rpcTimeoutMs }),
  new DownloadExecutor({ seal: contextSealFor(runtime.config), timeoutMs: runtime.config.rpcTimeoutMs }),
  new CsvImportExecutor({ seal: contextSealFor(runtime.config), timeoutMs: runtime.config.rpcTimeoutMs, config: csvImportConfig() }),
  new CloneObjectExecutor({ seal: contextSealFor(runtime.config), timeoutMs: runtime.config.rpcTimeoutMs }),
];

/** Works in the `jobs` schema, whose migrations the jobs service owns and applies. */
export const service: ServiceDefinition = { name: 'jobs-worker', schema: 'jobs', module: JobsWorkerModule, entities: [], migrations: [] };

export interface WorkerOptions {
  /** Job kinds of a test's own (a slow one, a failing one). */
  extraExecutors?: JobExecutor[];
  retry?: RetryPolicy;
  /** Notification delivery's retry policy (a test's short back-off). */
  notificationPolicy?: NotificationPolicy;
}

/** The channels notifications go out on, as SMTP_URL, SMTP_FROM and SLACK_WEBHOOK_URL configure them. */
const notificationSenders = () => {
  const config = notificationConfig();
  return [new EmailSender(config), new SlackSender(config)];
};

export const start = (runtime: Runtime, options: WorkerOptions = {}) =>
  startService(
    {
      ...service,
      module: JobsWorkerModule.with([...executors(runtime), ...(options.extraExecutors ?? [])], createFileStore(runtime.config, runtime.bus, { writer: true }), options.retry, {
        senders: notificationSenders(),
        policy: options.notificationPolicy,
      }),
    },
    runtime,
  );

if (isEntrypoint(import.meta.url)) await runStandalone('jobs-worker', start, { service, serveHealth: true });
