import { Module } from '@nestjs/common';
import { tenantRepositoryProvider } from '@lms/platform';
import { Account } from './accounts/account.entity.js';
import { ApiToken } from './auth/api-token.entity.js';
import { AuthHandlers } from './auth/auth.handlers.js';
import { AuthService } from './auth/auth.service.js';
import { CustomField } from './custom-fields/custom-field.entity.js';
import { CustomFieldsHandlers } from './custom-fields/custom-fields.handlers.js';
import { CustomFieldsService } from './custom-fields/custom-fields.service.js';
import { InitialIdentity1763800000000 } from './migrations/1763800000000-initial-identity.js';
import { UserFieldsHandlers } from './user-fields/user-fields.handlers.js';
import { User } from './users/user.entity.js';

export const IDENTITY_ENTITIES = [Account, User, ApiToken, CustomField];
export const IDENTITY_MIGRATIONS = [InitialIdentity1763800000000];

@Module({
  controllers: [AuthHandlers, CustomFieldsHandlers, UserFieldsHandlers],
  providers: [AuthService, CustomFieldsService, tenantRepositoryProvider(CustomField)],
})
export class IdentityModule {}
