import { type DynamicModule, Module } from '@nestjs/common';
import type { FileStore } from '@lms/platform';
import { FILE_STORE, JOB_EXECUTORS, type JobExecutor } from './job-executor.js';
import { DEFAULT_RETRY_POLICY, JobRunner, RETRY_POLICY, type RetryPolicy } from './job-runner.js';

/** The worker: its job runner, the executors of the job kinds it knows, and the file store they write to. */
@Module({})
export class JobsWorkerModule {
  static with(executors: JobExecutor[], files: FileStore, retry: RetryPolicy = DEFAULT_RETRY_POLICY): DynamicModule {
    return {
      module: JobsWorkerModule,
      providers: [{ provide: JOB_EXECUTORS, useValue: executors }, { provide: FILE_STORE, useValue: files }, { provide: RETRY_POLICY, useValue: retry }, JobRunner],
    };
  }
}
