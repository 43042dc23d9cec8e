import { Module } from '@nestjs/common';
import { tenantRepositoryProvider } from '@lms/platform';
import { Account } from './accounts/account.entity.js';
import { SubAccount } from './accounts/sub-account.entity.js';
import { ApiTokensHandlers } from './api-tokens/api-tokens.handlers.js';
import { ApiTokensService } from './api-tokens/api-tokens.service.js';
import { ApiToken } from './auth/api-token.entity.js';
import { AuthHandlers } from './auth/auth.handlers.js';
import { AuthService } from './auth/auth.service.js';
import { CustomField } from './custom-fields/custom-field.entity.js';
import { CustomFieldsHandlers } from './custom-fields/custom-fields.handlers.js';
import { CustomFieldsService } from './custom-fields/custom-fields.service.js';
import { InitialIdentity1763800000000 } from './migrations/1763800000000-initial-identity.js';
import { SubAccounts1763900000000 } from './migrations/1763900000000-sub-accounts.js';
import { UserFieldsHandlers } from './user-fields/user-fields.handlers.js';
import { User } from './users/user.entity.js';

export const IDENTITY_ENTITIES = [Account, SubAccount, User, ApiToken, CustomField];
export const IDENTITY_MIGRATIONS = [InitialIdentity1763800000000, SubAccounts1763900000000];

@Module({
  controllers: [AuthHandlers, ApiTokensHandlers, CustomFieldsHandlers, UserFieldsHandlers],
  providers: [
    AuthService,
    ApiTokensService,
    tenantRepositoryProvider(ApiToken),
    tenantRepositoryProvider(User),
    CustomFieldsService,
    tenantRepositoryProvider(CustomField),
  ],
})
export class IdentityModule {}
