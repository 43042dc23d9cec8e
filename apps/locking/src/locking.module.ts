import { Module } from '@nestjs/common';
import { InitialLocking1763800000000 } from './migrations/1763800000000-initial-locking.js';

export const LOCKING_MIGRATIONS = [InitialLocking1763800000000];

/** Feature modules of the locking service are added here as they land. */
@Module({})
export class LockingModule {}
