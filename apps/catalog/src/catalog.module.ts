import { Module } from '@nestjs/common';
import { InitialCatalog1763800000000 } from './migrations/1763800000000-initial-catalog.js';

export const CATALOG_MIGRATIONS = [InitialCatalog1763800000000];

/** Feature modules of the catalog service are added here as they land. */
@Module({})
export class CatalogModule {}
