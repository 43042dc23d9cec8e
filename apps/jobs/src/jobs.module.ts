import { Module } from '@nestjs/common';
import { InitialJobs1763800000000 } from './migrations/1763800000000-initial-jobs.js';

export const JOBS_MIGRATIONS = [InitialJobs1763800000000];

/** Feature modules of the jobs service are added here as they land. */
@Module({})
export class JobsModule {}
