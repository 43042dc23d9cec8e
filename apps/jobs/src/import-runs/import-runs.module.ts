import { Module } from '@nestjs/common';
import { ImportRunsHandlers } from './import-runs.handlers.js';
import { ImportRunsService } from './import-runs.service.js';
import { ImportScheduler, importSchedulerConfigProvider } from './import-scheduler.js';

/** Scheduled CSV imports: the run routes, and the scheduler that enqueues each profile's slots. */
@Module({ controllers: [ImportRunsHandlers], providers: [ImportRunsService, ImportScheduler, importSchedulerConfigProvider], exports: [ImportScheduler] })
export class ImportRunsModule {}
