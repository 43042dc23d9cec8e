import { isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { JOBS_MIGRATIONS, JobsModule } from './jobs.module.js';

export const service: ServiceDefinition = { name: 'jobs', schema: 'jobs', module: JobsModule, entities: [], migrations: JOBS_MIGRATIONS };

export const start = (runtime: Runtime) => startService(service, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('jobs', start, { service, serveHealth: true });
