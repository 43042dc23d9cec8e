import { Inject, type Provider } from '@nestjs/common';
import type { EntityTarget } from 'typeorm';
import { Database } from './database.js';
import { type TenantOwned, TenantRepository } from './tenant-repository.js';

const tokenOf = (entity: EntityTarget<unknown>) => `TenantRepository<${typeof entity === 'function' ? entity.name : String(entity)}>`;

/** Registers a TenantRepository for an entity; inject it with @InjectTenantRepository(Entity). */
export function tenantRepositoryProvider<T extends TenantOwned>(entity: EntityTarget<T>): Provider {
  return { provide: tokenOf(entity), useFactory: (db: Database) => new TenantRepository<T>(db, entity), inject: [Database] };
}

export const InjectTenantRepository = (entity: EntityTarget<unknown>) => Inject(tokenOf(entity));
