import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { NOTIFICATION_TYPE_SUBJECTS as S, type NotificationTypeParams, type RpcRequest, type UpdateNotificationTypeBody } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { NotificationTypesService } from './notification-types.service.js';

const envelope = (notification_types: unknown[]) => ({ meta: {}, notification_types });

@Controller()
export class NotificationTypesHandlers {
  constructor(private readonly service: NotificationTypesService) {}

  @Handles(S.list)
  async list(@Payload() { ctx }: RpcRequest) {
    return envelope(await this.service.list(ctx));
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, NotificationTypeParams>) {
    return envelope([await this.service.show(ctx, params.id)]);
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateNotificationTypeBody, object, NotificationTypeParams>) {
    return envelope([await this.service.update(ctx, params.id, body.channels)]);
  }
}
