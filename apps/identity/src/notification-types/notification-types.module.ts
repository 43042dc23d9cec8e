import { Module } from '@nestjs/common';
import { tenantRepositoryProvider } from '@lms/platform';
import { NotificationTypeSetting } from './notification-type-setting.entity.js';
import { NotificationTypesHandlers } from './notification-types.handlers.js';
import { NotificationTypesService } from './notification-types.service.js';

@Module({
  controllers: [NotificationTypesHandlers],
  providers: [NotificationTypesService, tenantRepositoryProvider(NotificationTypeSetting)],
})
export class NotificationTypesModule {}
