import { isEntrypoint, runStandalone, startService, type Runtime } from '@lms/platform';
import { CATALOG_MIGRATIONS, CatalogModule } from './catalog.module.js';

export const start = (runtime: Runtime) =>
  startService({ name: 'catalog', schema: 'catalog', module: CatalogModule, entities: [], migrations: CATALOG_MIGRATIONS }, runtime);

if (isEntrypoint(import.meta.url)) await runStandalone('catalog', start, { needsDatabase: true, serveHealth: true });
