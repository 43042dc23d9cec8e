import { isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { LOCKING_MIGRATIONS, LockingModule } from './locking.module.js';

export const service: ServiceDefinition = { name: 'locking', schema: 'locking', module: LockingModule, entities: [], migrations: LOCKING_MIGRATIONS };

export const start = (runtime: Runtime) => startService(service, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('locking', start, { service, serveHealth: true });
