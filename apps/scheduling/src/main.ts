import { isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { SCHEDULING_ENTITIES, SCHEDULING_MIGRATIONS, SchedulingModule } from './scheduling.module.js';

export const service: ServiceDefinition = { name: 'scheduling', schema: 'scheduling', module: SchedulingModule, entities: SCHEDULING_ENTITIES, migrations: SCHEDULING_MIGRATIONS };

export const start = (runtime: Runtime) => startService(service, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('scheduling', start, { service, serveHealth: true });
