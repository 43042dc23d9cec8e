import { isEntrypoint, runStandalone, startService, type Runtime } from '@lms/platform';
import { JOBS_MIGRATIONS, JobsModule } from './jobs.module.js';

export const start = (runtime: Runtime) =>
  startService({ name: 'jobs', schema: 'jobs', module: JobsModule, entities: [], migrations: JOBS_MIGRATIONS }, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('jobs', start, { needsDatabase: true, serveHealth: true });
