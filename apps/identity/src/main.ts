import { isEntrypoint, runStandalone, startService, type Runtime } from '@lms/platform';
import { bootstrapFirstAccount } from './accounts/bootstrap.js';
import { IDENTITY_ENTITIES, IDENTITY_MIGRATIONS, IdentityModule } from './identity.module.js';

export const start = (runtime: Runtime) =>
  startService(
    {
      name: 'identity',
      schema: 'identity',
      module: IdentityModule,
      entities: IDENTITY_ENTITIES,
      migrations: IDENTITY_MIGRATIONS,
      onReady: ({ db }) => bootstrapFirstAccount(db, runtime.config, runtime.logger),
    },
    runtime,
  );

if (isEntrypoint(import.meta.url)) await runStandalone('identity', start, { needsDatabase: true, serveHealth: true });
