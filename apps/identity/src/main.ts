import { isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { bootstrapFirstAccount } from './accounts/bootstrap.js';
import { IDENTITY_ENTITIES, IDENTITY_MIGRATIONS, IdentityModule } from './identity.module.js';

export const service: ServiceDefinition = {
  name: 'identity',
  schema: 'identity',
  module: IdentityModule,
  entities: IDENTITY_ENTITIES,
  migrations: IDENTITY_MIGRATIONS,
  onReady: ({ db, runtime }) => bootstrapFirstAccount(db, runtime.config, runtime.logger),
};

export const start = (runtime: Runtime) => startService(service, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('identity', start, { service, serveHealth: true });
