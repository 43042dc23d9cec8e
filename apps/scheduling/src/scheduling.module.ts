import { Module } from '@nestjs/common';
import { InitialScheduling1763800000000 } from './migrations/1763800000000-initial-scheduling.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';

export const SCHEDULING_MIGRATIONS = [InitialScheduling1763800000000, IdempotencyKeys1764350000000];

/** Feature modules of the scheduling service are added here as they land. */
@Module({})
export class SchedulingModule {}
