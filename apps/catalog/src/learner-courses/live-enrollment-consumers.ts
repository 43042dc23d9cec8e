import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT,
  LIVE_COURSE_ENROLLMENT_CREATED_EVENT,
  LIVE_COURSE_ENROLLMENT_REMOVED_EVENT,
  LiveCourseEnrollmentCompletedData,
} from '@lms/contracts';
import { CONSUMER_RETRY, Database, eventData, eventDataId, InjectTenantRepository, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { LearnerLiveEnrollment } from './learner-live-enrollment.entity.js';

export const LEARNER_LIVE_ENROLLMENTS_CONSUMER = 'catalog-learner-live-enrollments';

/**
 * Keeps learners' live trainings (LearnerLiveEnrollment) in step with scheduling's live course
 * enrollments: one durable for the three events, so an enrollment's creation, completion and removal
 * apply in their order; each applies once (inbox).
 */
@Injectable()
export class LiveEnrollmentConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: Subscription;

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectTenantRepository(LearnerLiveEnrollment) private readonly rows: TenantRepository<LearnerLiveEnrollment>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const types = [LIVE_COURSE_ENROLLMENT_CREATED_EVENT, LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT, LIVE_COURSE_ENROLLMENT_REMOVED_EVENT];
    this.subscription = await subscribeWithInbox(this.db, this.bus.events, { durable: LEARNER_LIVE_ENROLLMENTS_CONSUMER, types, ...CONSUMER_RETRY }, async (event) => {
      const scope: TenantScope = { accountId: event.accountid };
      const enrollmentId = eventDataId(event, 'enrollment_id');
      if (event.type === LIVE_COURSE_ENROLLMENT_CREATED_EVENT) {
        await this.rows.insertNew(scope, [{ schedulingEnrollmentId: enrollmentId, liveCourseId: eventDataId(event, 'live_course_id'), userId: eventDataId(event, 'user_id') }]);
      } else if (event.type === LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT) {
        const data = await eventData<LiveCourseEnrollmentCompletedData>(LiveCourseEnrollmentCompletedData, event);
        await this.rows.insertNew(scope, [{ schedulingEnrollmentId: enrollmentId, liveCourseId: data.live_course_id, userId: data.user_id }]);
        await this.rows.update(scope, { schedulingEnrollmentId: enrollmentId }, { completedAt: new Date(data.completed_at) });
      } else {
        await this.rows.update(scope, { schedulingEnrollmentId: enrollmentId }, { deletedAt: new Date(event.time) });
      }
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
