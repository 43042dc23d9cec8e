import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CATALOG_ENROLLMENT_COMPLETED_EVENT, CatalogEnrollmentCompletedData } from '@lms/contracts';
import { CONSUMER_RETRY, Database, eventData, InjectTenantRepository, MESSAGE_BUS, type MessageBus, type Subscription, subscribeWithInbox, type TenantRepository } from '@lms/platform';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { RetainQuizzesService } from './retain-quizzes.service.js';

export const RETAIN_QUIZZES_CONSUMER = 'catalog-retain-quizzes';

/**
 * Every course completion schedules its retain quizzes, whichever way it came (the learner, an author's
 * update, an import): the learner's own completion also schedules them at once, and the unique key makes
 * the second time a no-op.
 */
@Injectable()
export class RetainQuizConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: Subscription;

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly quizzes: RetainQuizzesService,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await subscribeWithInbox(this.db, this.bus.events, { durable: RETAIN_QUIZZES_CONSUMER, types: [CATALOG_ENROLLMENT_COMPLETED_EVENT], ...CONSUMER_RETRY }, async (event) => {
      const data = await eventData<CatalogEnrollmentCompletedData>(CatalogEnrollmentCompletedData, event);
      if (data.course_id === undefined) return;
      const scope = { accountId: event.accountid };
      const enrollment = await this.enrollments.findOne(scope, { id: data.enrollment_id });
      if (enrollment) await this.quizzes.schedule(scope, enrollment);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
