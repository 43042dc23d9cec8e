import { Module } from '@nestjs/common';
import { InitialJobs1763800000000 } from './migrations/1763800000000-initial-jobs.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';
import { Jobs1764500000000 } from './migrations/1764500000000-jobs.js';

export const JOBS_MIGRATIONS = [InitialJobs1763800000000, IdempotencyKeys1764350000000, Jobs1764500000000];

/** Feature modules of the jobs service are added here as they land. */
@Module({})
export class JobsModule {}
