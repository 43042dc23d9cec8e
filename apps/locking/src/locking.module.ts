import { Module } from '@nestjs/common';
import { InitialLocking1763800000000 } from './migrations/1763800000000-initial-locking.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';

export const LOCKING_MIGRATIONS = [InitialLocking1763800000000, IdempotencyKeys1764350000000];

/** Feature modules of the locking service are added here as they land. */
@Module({})
export class LockingModule {}
