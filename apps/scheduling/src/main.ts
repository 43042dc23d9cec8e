import { isEntrypoint, runStandalone, startService, type Runtime } from '@lms/platform';
import { SCHEDULING_MIGRATIONS, SchedulingModule } from './scheduling.module.js';

export const start = (runtime: Runtime) =>
  startService({ name: 'scheduling', schema: 'scheduling', module: SchedulingModule, entities: [], migrations: SCHEDULING_MIGRATIONS }, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('scheduling', start, { needsDatabase: true, serveHealth: true });
