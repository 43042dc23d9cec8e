import { Module } from '@nestjs/common';
import { DataDumpsHandlers } from './data-dumps/data-dumps.handlers.js';
import { DataDumpsService } from './data-dumps/data-dumps.service.js';
import { InitialJobs1763800000000 } from './migrations/1763800000000-initial-jobs.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';
import { Jobs1764500000000 } from './migrations/1764500000000-jobs.js';

export const JOBS_MIGRATIONS = [InitialJobs1763800000000, IdempotencyKeys1764350000000, Jobs1764500000000];

@Module({ controllers: [DataDumpsHandlers], providers: [DataDumpsService] })
export class JobsModule {}
