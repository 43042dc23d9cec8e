import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Any } from 'typeorm';
import { USER_DELETED_EVENT, UserEventData } from '@lms/contracts';
import { CONSUMER_RETRY, Database, DepartedUsers, eventData, InjectTenantRepository, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox, type TenantRepository } from '@lms/platform';
import { LiveCourseEnrollment } from '../learners/live-course-enrollment.entity.js';
import { LiveCourse } from '../live-courses/live-course.entity.js';
import { SeatRelease } from './seat-release.js';

export const SCHEDULING_USER_DELETED_CONSUMER = 'scheduling-registrations-user-deleted';

/**
 * `identity.user.deleted`: the user leaves every live course, as removing them from it does (their
 * registrations, waitlist places and enrollment; freed seats go to the waitlists). A completed enrollment
 * stays, the record of what they did, as catalog keeps completions; they still leave its open sessions.
 */
@Injectable()
export class RegistrationEventConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly seats: SeatRelease,
    private readonly departed: DepartedUsers,
    @InjectTenantRepository(LiveCourse) private readonly courses: TenantRepository<LiveCourse>,
    @InjectTenantRepository(LiveCourseEnrollment) private readonly enrollments: TenantRepository<LiveCourseEnrollment>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscriptions.push(
      await subscribeWithInbox(this.db, this.bus.events, { durable: SCHEDULING_USER_DELETED_CONSUMER, types: [USER_DELETED_EVENT], ...CONSUMER_RETRY }, async (event) => {
        const { user_id: userId } = await eventData<UserEventData>(UserEventData, event);
        const scope = { accountId: event.accountid };
        // Recorded first: an enrollment of theirs still being inserted commits before the list below, or sees the record.
        await this.departed.record(scope, userId);
        // Courses in id order, as every writer locks them, so this never deadlocks with a registration; then their
        // enrollments, then the sessions, as removing a learner locks them (deleted courses included), all courses'
        // at each step: a registration holding an enrollment commits first and is withdrawn; a later one finds
        // the user deleted. A statement per step, not per course: a user of thousands of live courses leaves them
        // in a short transaction.
        const courses = [...new Set((await this.enrollments.find(scope, { where: { userId }, order: { liveCourseId: 'ASC' } })).map((e) => e.liveCourseId))];
        if (courses.length === 0) return;
        await this.courses.find(scope, { where: { id: Any(courses) }, order: { id: 'ASC' }, lock: 'update' });
        const enrollments = await this.enrollments.find(scope, { where: { liveCourseId: Any(courses), userId }, order: { liveCourseId: 'ASC' }, lock: 'update' });
        // Completed, or removed meanwhile (an author's removal): only open sessions are left to withdraw from.
        await this.seats.leaveCourses(scope, userId, courses, enrollments.filter((e) => !e.completedAt));
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
  }
}
