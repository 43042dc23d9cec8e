import { isEntrypoint, runStandalone, startService, type Runtime } from '@lms/platform';
import { JobsWorkerModule } from './jobs-worker.module.js';

/** Works in the `jobs` schema, whose migrations the jobs service owns and applies. */
export const start = (runtime: Runtime) =>
  startService({ name: 'jobs-worker', schema: 'jobs', module: JobsWorkerModule, entities: [], migrations: [] }, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('jobs-worker', start, { needsDatabase: true, serveHealth: true });
