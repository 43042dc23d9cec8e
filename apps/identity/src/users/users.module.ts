import { Module } from '@nestjs/common';
import { tenantRepositoryProvider } from '@lms/platform';
import { ApiToken } from '../auth/api-token.entity.js';
import { CustomField } from '../custom-fields/custom-field.entity.js';
import { MasqueradeHandlers } from './masquerade.handlers.js';
import { UserCompletion } from './user-completion.entity.js';
import { UserCustomFieldValue } from './user-custom-field-value.entity.js';
import { UserDeletionService } from './user-deletion.service.js';
import { UserEventConsumers } from './user-event-consumers.js';
import { User } from './user.entity.js';
import { UserFinder } from './user-finder.js';
import { UserSummaryService } from './user-summary.service.js';
import { UsersHandlers } from './users.handlers.js';
import { UsersService } from './users.service.js';

/** Entities this feature adds to the identity schema (User itself is listed by the identity module). */
export const USERS_ENTITIES = [UserCustomFieldValue, UserCompletion];

@Module({
  controllers: [UsersHandlers, MasqueradeHandlers],
  providers: [
    UsersService,
    UserFinder,
    UserDeletionService,
    UserSummaryService,
    UserEventConsumers,
    tenantRepositoryProvider(User),
    tenantRepositoryProvider(ApiToken),
    tenantRepositoryProvider(UserCustomFieldValue),
    tenantRepositoryProvider(UserCompletion),
    tenantRepositoryProvider(CustomField),
  ],
  exports: [UserFinder, UsersService],
})
export class UsersModule {}
