import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  GROUP_DELETED_EVENT,
  GROUP_MEMBERSHIP_ADDED_EVENT,
  GROUP_MEMBERSHIP_REMOVED_EVENT,
  USER_DELETED_EVENT,
  UserEventData,
} from '@lms/contracts';
import { CONSUMER_RETRY, Database, DEPENDENT_CONSUMER_RETRY, eventData, eventDataId, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox } from '@lms/platform';
import { EnrollmentLifecycle } from './enrollment-lifecycle.service.js';
import { EnrollmentsService } from './enrollments.service.js';

export const ENROLLMENT_USER_DELETED_CONSUMER = 'catalog-enrollments-user-deleted';
/**
 * A group's events. A join and a leave each ask identity whether the learner is in the group now, under the
 * learner's membership lock, so their order of handling (retries, replicas) does not change the outcome.
 */
export const ENROLLMENT_GROUPS_CONSUMER = 'catalog-enrollments-groups';

/**
 * What identity tells the enrollments: a deleted user's open enrollments are withdrawn; a learner who
 * joins an enrolled group is enrolled, one who leaves it loses the enrollments it brought that they never
 * started; a deleted group enrolls nobody more.
 */
@Injectable()
export class EnrollmentEventConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly enrollments: EnrollmentsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscriptions.push(
      await subscribeWithInbox(this.db, this.bus.events, { durable: ENROLLMENT_USER_DELETED_CONSUMER, types: [USER_DELETED_EVENT], ...CONSUMER_RETRY }, async (event) => {
        const data = await eventData<UserEventData>(UserEventData, event);
        await this.lifecycle.withdrawUser({ accountId: event.accountid }, data.user_id);
      }),
      await subscribeWithInbox(
        this.db,
        this.bus.events,
        { durable: ENROLLMENT_GROUPS_CONSUMER, types: [GROUP_MEMBERSHIP_ADDED_EVENT, GROUP_MEMBERSHIP_REMOVED_EVENT, GROUP_DELETED_EVENT], ...DEPENDENT_CONSUMER_RETRY },
        async (event) => {
          const scope = { accountId: event.accountid };
          if (event.type === GROUP_DELETED_EVENT) await this.enrollments.forgetGroup(scope, eventDataId(event, 'id'));
          else if (event.type === GROUP_MEMBERSHIP_ADDED_EVENT) await this.enrollments.enrollNewMember(scope, eventDataId(event, 'group_id'), eventDataId(event, 'user_id'));
          else await this.lifecycle.leaveGroup(scope, eventDataId(event, 'group_id'), eventDataId(event, 'user_id'));
        },
      ),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
  }
}
