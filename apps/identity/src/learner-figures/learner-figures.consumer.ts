import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ENROLLMENT_CREATED_EVENT, ENROLLMENT_REMOVED_EVENT, ENROLLMENT_UPDATED_EVENT, EnrollmentEventPayload } from '@lms/contracts';
import { CONSUMER_RETRY, Database, eventData, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox } from '@lms/platform';
import { LearnerFiguresService } from './learner-figures.service.js';

export const LEARNER_ENROLLMENTS_CONSUMER = 'identity-learner-enrollments';

/** catalog's enrollment events into `learner_enrollments`, once each (inbox), retried, then dead-lettered. */
@Injectable()
export class LearnerFiguresConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: Subscription;

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly figures: LearnerFiguresService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await subscribeWithInbox(
      this.db,
      this.bus.events,
      { durable: LEARNER_ENROLLMENTS_CONSUMER, types: [ENROLLMENT_CREATED_EVENT, ENROLLMENT_UPDATED_EVENT, ENROLLMENT_REMOVED_EVENT], ...CONSUMER_RETRY },
      async (event, manager) => {
        await this.figures.record(manager, event, await eventData<EnrollmentEventPayload>(EnrollmentEventPayload, event));
      },
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
