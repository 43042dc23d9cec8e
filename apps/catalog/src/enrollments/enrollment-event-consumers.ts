import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { USER_DELETED_EVENT, UserEventData, validateInput } from '@lms/contracts';
import { Database, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox } from '@lms/platform';
import { EnrollmentLifecycle } from './enrollment-lifecycle.service.js';

export const ENROLLMENT_USER_DELETED_CONSUMER = 'catalog-enrollments-user-deleted';

/** Retries back off; an event still failing after the last try goes to the dead-letter stream. */
const RETRY = { maxDeliver: 5, backoffMs: [100, 500, 2000] };

/** What identity tells the enrollments: a deleted user's open enrollments are withdrawn. */
@Injectable()
export class EnrollmentEventConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly lifecycle: EnrollmentLifecycle,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscriptions.push(
      await subscribeWithInbox(this.db, this.bus.events, { durable: ENROLLMENT_USER_DELETED_CONSUMER, types: [USER_DELETED_EVENT], ...RETRY }, async (event) => {
        const data = await validateInput<UserEventData>(UserEventData, event.data, 'data');
        if (!data.ok) throw new Error(`invalid ${event.type} event ${event.id}: ${data.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
        await this.lifecycle.withdrawUser({ accountId: event.accountid }, data.value.user_id);
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
  }
}
