import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, type ListNotificationDeliveriesQuery, NOTIFICATION_SUBJECTS as S, type RpcRequest, type WelcomeParams } from '@lms/contracts';
import { Handles, paged, reply } from '@lms/platform';
import { NotificationsService } from './notifications.service.js';

@Controller()
export class NotificationsHandlers {
  constructor(private readonly service: NotificationsService) {}

  /** 202: the message is queued; its deliveries show in GET /api/admin/notification_deliveries. */
  @Handles(S.welcome)
  async welcome(@Payload() { ctx, params }: RpcRequest<unknown, object, WelcomeParams>) {
    await this.service.welcome(ctx, params.user_id);
    return reply(undefined, { status: 202 });
  }

  @Handles(S.deliveries)
  async deliveries(@Payload() { ctx, query }: RpcRequest<unknown, ListNotificationDeliveriesQuery>) {
    const page = await this.service.deliveries(ctx, query);
    return paged(envelope('notification_deliveries', page.deliveries), page.size, page.next);
  }
}
