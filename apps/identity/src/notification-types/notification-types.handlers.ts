import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  NOTIFICATION_TYPE_SETTINGS_SUBJECT,
  NOTIFICATION_TYPE_SUBJECTS as S,
  type NotificationTypeParams,
  NotificationTypeSettingsRequest,
  type NotificationTypeSettingsReply,
  type RpcRequest,
  type UpdateNotificationTypeBody,
  envelope,
} from '@lms/contracts';
import { Handles } from '@lms/platform';
import { NotificationTypesService } from './notification-types.service.js';

@Controller()
export class NotificationTypesHandlers {
  constructor(private readonly service: NotificationTypesService) {}

  @Handles(S.list)
  async list(@Payload() { ctx }: RpcRequest) {
    return envelope('notification_types', await this.service.list(ctx));
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, NotificationTypeParams>) {
    return envelope('notification_types', [await this.service.show(ctx, params.id)]);
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateNotificationTypeBody, object, NotificationTypeParams>) {
    return envelope('notification_types', [await this.service.update(ctx, params.id, body.channels)]);
  }

  /** Internal (jobs-worker's notification delivery): every type's effective channels for the caller's account. */
  @Handles(NOTIFICATION_TYPE_SETTINGS_SUBJECT, { body: NotificationTypeSettingsRequest })
  async settings(@Payload() { ctx, body }: RpcRequest<NotificationTypeSettingsRequest>): Promise<NotificationTypeSettingsReply> {
    const types = (await this.service.list(ctx)).filter((t) => !body.types || body.types.includes(t.id));
    return { types: Object.fromEntries(types.map((t) => [t.id, t.channels])) };
  }
}
