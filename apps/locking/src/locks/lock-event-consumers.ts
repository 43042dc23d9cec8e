import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { COURSE_AUTHOR_REMOVED_EVENT, COURSE_TEMPLATE_DELETED_EVENT, TASK_DELETED_EVENT, USER_DELETED_EVENT, UserEventData } from '@lms/contracts';
import { CONSUMER_RETRY, Database, eventData, eventDataId, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox } from '@lms/platform';
import { LocksService } from './locks.service.js';

export const USER_DELETED_CONSUMER = 'locking-user-deleted';
export const ITEM_DELETED_CONSUMER = 'locking-item-deleted';
export const AUTHOR_REMOVED_CONSUMER = 'locking-author-removed';

/** Locks end with their holder (identity.user.deleted), with their item (catalog's deletions) and with the holder's authorship of it. */
@Injectable()
export class LockEventConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly locks: LocksService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const events = this.bus.events;
    this.subscriptions.push(
      await subscribeWithInbox(this.db, events, { durable: USER_DELETED_CONSUMER, types: [USER_DELETED_EVENT], ...CONSUMER_RETRY }, async (event) => {
        const data = await eventData<UserEventData>(UserEventData, event);
        await this.locks.releaseHeldBy({ accountId: event.accountid }, data.user_id);
      }),
      await subscribeWithInbox(this.db, events, { durable: ITEM_DELETED_CONSUMER, types: [COURSE_TEMPLATE_DELETED_EVENT, TASK_DELETED_EVENT], ...CONSUMER_RETRY }, async (event) => {
        const type = event.type === TASK_DELETED_EVENT ? 'Task' : 'CourseTemplate';
        await this.locks.releaseItem({ accountId: event.accountid }, { type, id: eventDataId(event, 'id') });
      }),
      await subscribeWithInbox(this.db, events, { durable: AUTHOR_REMOVED_CONSUMER, types: [COURSE_AUTHOR_REMOVED_EVENT], ...CONSUMER_RETRY }, async (event) => {
        const course = { type: 'CourseTemplate' as const, id: eventDataId(event, 'course_template_id') };
        await this.locks.releaseRemovedAuthor({ accountId: event.accountid }, course, eventDataId(event, 'user_id'));
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
  }
}
