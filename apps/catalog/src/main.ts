import { isEntrypoint, runStandalone, type Runtime, type ServiceDefinition, startService } from '@lms/platform';
import { CATALOG_ENTITIES, CATALOG_MIGRATIONS, CatalogModule } from './catalog.module.js';
import { seedSampleMarkets } from './markets/sample-seed.js';

export const service: ServiceDefinition = {
  name: 'catalog',
  schema: 'catalog',
  module: CatalogModule,
  entities: CATALOG_ENTITIES,
  migrations: CATALOG_MIGRATIONS,
  onReady: seedSampleMarkets,
};

export const start = (runtime: Runtime) => startService(service, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('catalog', start, { service, serveHealth: true });
