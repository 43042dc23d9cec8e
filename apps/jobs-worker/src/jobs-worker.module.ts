import { type DynamicModule, Module } from '@nestjs/common';
import type { FileStore } from '@lms/platform';
import { FILE_STORE, JOB_EXECUTORS, type JobExecutor } from './job-executor.js';
import { DEFAULT_RETRY_POLICY, JobRunner, RETRY_POLICY, type RetryPolicy } from './job-runner.js';
import type { DeliveryChannelSender } from './notifications/delivery-channels.js';
import {
  DEFAULT_NOTIFICATION_POLICY,
  NOTIFICATION_POLICY,
  NOTIFICATION_SENDERS,
  NotificationDispatcher,
  type NotificationPolicy,
} from './notifications/notification-dispatcher.js';
import { RETENTION_POLICY, retentionPolicy, type RetentionPolicy, RetentionSweeper } from './retention/retention-sweeper.js';

/** Notification delivery: the channel senders (configured or not) and its retry policy. */
export interface NotificationSetup {
  senders: DeliveryChannelSender[];
  policy?: NotificationPolicy;
}

/** The worker: its job runner, the executors of the job kinds it knows, and the file store they write to. */
@Module({})
export class JobsWorkerModule {
  static with(
    executors: JobExecutor[],
    files: FileStore,
    retry: RetryPolicy = DEFAULT_RETRY_POLICY,
    notifications: NotificationSetup = { senders: [] },
    retention: RetentionPolicy = retentionPolicy(),
  ): DynamicModule {
    return {
      module: JobsWorkerModule,
      providers: [
        { provide: JOB_EXECUTORS, useValue: executors },
        { provide: FILE_STORE, useValue: files },
        { provide: RETRY_POLICY, useValue: retry },
        JobRunner,
        { provide: NOTIFICATION_SENDERS, useValue: notifications.senders },
        { provide: NOTIFICATION_POLICY, useValue: notifications.policy ?? DEFAULT_NOTIFICATION_POLICY },
        NotificationDispatcher,
        { provide: RETENTION_POLICY, useValue: retention },
        RetentionSweeper,
      ],
    };
  }
}
