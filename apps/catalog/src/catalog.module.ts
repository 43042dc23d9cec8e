import { Module } from '@nestjs/common';
import { InitialCatalog1763800000000 } from './migrations/1763800000000-initial-catalog.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';

export const CATALOG_MIGRATIONS = [InitialCatalog1763800000000, IdempotencyKeys1764350000000];

/** Feature modules of the catalog service are added here as they land. */
@Module({})
export class CatalogModule {}
