import { isEntrypoint, runStandalone, startService, type Runtime } from '@lms/platform';
import { LOCKING_MIGRATIONS, LockingModule } from './locking.module.js';

export const start = (runtime: Runtime) =>
  startService({ name: 'locking', schema: 'locking', module: LockingModule, entities: [], migrations: LOCKING_MIGRATIONS }, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('locking', start, { needsDatabase: true, serveHealth: true });
