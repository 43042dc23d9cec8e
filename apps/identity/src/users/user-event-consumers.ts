import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  CATALOG_ENROLLMENT_COMPLETED_EVENT,
  CatalogEnrollmentCompletedData,
  type CloudEvent,
  LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT,
  LiveCourseEnrollmentCompletedData,
  USER_DELETION_REQUESTED_EVENT,
  UserEventData,
} from '@lms/contracts';
import { CONSUMER_RETRY, Database, eventData, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox } from '@lms/platform';
import { UserDeletionService } from './user-deletion.service.js';
import { type CompletionRecord, UserSummaryService } from './user-summary.service.js';

export const COMPLETIONS_CONSUMER = 'identity-user-completions';
export const DELETION_CONSUMER = 'identity-user-deletion';

export function completionOf(event: CloudEvent, data: CatalogEnrollmentCompletedData | LiveCourseEnrollmentCompletedData): CompletionRecord {
  const common = { userId: data.user_id, enrollmentId: data.enrollment_id, completedAt: data.completed_at, dueAt: data.due_at, eventId: event.id };
  if (data instanceof LiveCourseEnrollmentCompletedData) return { ...common, kind: 'live_course', sourceId: data.live_course_id };
  if (data.program_id !== undefined) return { ...common, kind: 'program', sourceId: data.program_id };
  if (data.task_id !== undefined) return { ...common, kind: 'task', sourceId: data.task_id };
  return { ...common, kind: 'course', sourceId: data.course_id as number };
}

/**
 * The users feature's durable event consumers, started with the service and drained before it closes:
 * completion events feed the summary projection; deletion requests are finished by the deletion worker.
 */
@Injectable()
export class UserEventConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly summaries: UserSummaryService,
    private readonly deletions: UserDeletionService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const events = this.bus.events;
    this.subscriptions.push(
      await subscribeWithInbox(
        this.db,
        events,
        { durable: COMPLETIONS_CONSUMER, types: [CATALOG_ENROLLMENT_COMPLETED_EVENT, LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT], ...CONSUMER_RETRY },
        async (event, manager) => {
          const cls = event.type === LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT ? LiveCourseEnrollmentCompletedData : CatalogEnrollmentCompletedData;
          const data = await eventData<CatalogEnrollmentCompletedData | LiveCourseEnrollmentCompletedData>(cls, event);
          await this.summaries.record(manager, event.accountid, completionOf(event, data));
        },
      ),
      await subscribeWithInbox(this.db, events, { durable: DELETION_CONSUMER, types: [USER_DELETION_REQUESTED_EVENT], ...CONSUMER_RETRY }, async (event) => {
        const data = await eventData<UserEventData>(UserEventData, event);
        await this.deletions.finishDeletion({ accountId: event.accountid }, data.user_id);
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
  }
}
