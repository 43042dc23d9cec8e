import { isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { JobsWorkerModule } from './jobs-worker.module.js';

/** Works in the `jobs` schema, whose migrations the jobs service owns and applies. */
export const service: ServiceDefinition = { name: 'jobs-worker', schema: 'jobs', module: JobsWorkerModule, entities: [], migrations: [] };

export const start = (runtime: Runtime) => startService(service, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('jobs-worker', start, { needsDatabase: true, serveHealth: true });
