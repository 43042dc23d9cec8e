import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type CloudEvent, COURSE_TEMPLATE_DELETED_EVENT, TASK_DELETED_EVENT, USER_DELETED_EVENT, UserEventData } from '@lms/contracts';
import { Database, eventData, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox } from '@lms/platform';
import { LocksService } from './locks.service.js';

export const USER_DELETED_CONSUMER = 'locking-user-deleted';
export const ITEM_DELETED_CONSUMER = 'locking-item-deleted';

const RETRY = { maxDeliver: 5, backoffMs: [100, 500, 2000] };

/** Catalog's deletion events carry the item's id; the rest of their data is catalog's business. */
function deletedItemId(event: CloudEvent): number {
  const id = (event.data as { id?: unknown } | null)?.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw new Error(`invalid ${event.type} event ${event.id}: data.id must be a positive integer`);
  return id;
}

/** Locks end with their holder (identity.user.deleted) and with their item (catalog's deletions). */
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
      await subscribeWithInbox(this.db, events, { durable: USER_DELETED_CONSUMER, types: [USER_DELETED_EVENT], ...RETRY }, async (event) => {
        const data = await eventData<UserEventData>(UserEventData, event);
        await this.locks.releaseHeldBy({ accountId: event.accountid }, data.user_id);
      }),
      await subscribeWithInbox(this.db, events, { durable: ITEM_DELETED_CONSUMER, types: [COURSE_TEMPLATE_DELETED_EVENT, TASK_DELETED_EVENT], ...RETRY }, async (event) => {
        const type = event.type === TASK_DELETED_EVENT ? 'Task' : 'CourseTemplate';
        await this.locks.releaseItem({ accountId: event.accountid }, { type, id: deletedItemId(event) });
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
  }
}
