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
import { CrmAccountsModule } from './crm-accounts/crm-accounts.module.js';
import { ImportProfile } from './import-profile/import-profile.entity.js';
import { ImportProfileModule } from './import-profile/import-profile.module.js';
import { AdminSettings1764200000000 } from './migrations/1764200000000-admin-settings.js';
import { NotificationTypeSetting } from './notification-types/notification-type-setting.entity.js';
import { NotificationTypesModule } from './notification-types/notification-types.module.js';
import { GroupsModule } from './groups/groups.module.js';
import { Group } from './groups/group.entity.js';
import { GroupMembership } from './groups/group-membership.entity.js';
import { Groups1764100000000 } from './migrations/1764100000000-groups.js';
import { SubAccountLocks1764400000000 } from './migrations/1764400000000-sub-account-locks.js';
import { UsersListIndex1764500000000 } from './migrations/1764500000000-users-list-index.js';
import { DirectoryHandlers } from './directory/directory.handlers.js';
import { DirectoryService } from './directory/directory.service.js';
import { Users1764000000000 } from './migrations/1764000000000-users.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';
import { USERS_ENTITIES, UsersModule } from './users/users.module.js';
import { LearnerEnrollment } from './learner-figures/learner-enrollment.entity.js';
import { LearnerEnrollments1765500000000 } from './migrations/1765500000000-learner-enrollments.js';
import { TaskCompletions1766600000000 } from './migrations/1766600000000-task-completions.js';
import { IdentityDumpModule } from './identity-dump.js';
import { SignIns1766800000000 } from './migrations/1766800000000-sign-ins.js';
import { SubAccountClones1766900000000 } from './migrations/1766900000000-sub-account-clones.js';
import { InboxAge1767800000000 } from './migrations/1767800000000-inbox-age.js';
import { IdempotencyTokenReplies1768200000000 } from './migrations/1768200000000-idempotency-token-replies.js';
import { SignInsModule } from './sign-ins/sign-ins.module.js';
import { UserImportModule } from './user-import/user-import.module.js';
import { SubAccountClonesHandlers } from './clones/sub-account-clones.handlers.js';
import { SubAccountClonesService } from './clones/sub-account-clones.service.js';

export const IDENTITY_ENTITIES = [Account, SubAccount, User, ApiToken, CustomField, Group, GroupMembership, ImportProfile, NotificationTypeSetting, LearnerEnrollment, ...USERS_ENTITIES];
export const IDENTITY_MIGRATIONS = [InitialIdentity1763800000000, SubAccounts1763900000000, Users1764000000000, Groups1764100000000, AdminSettings1764200000000, IdempotencyKeys1764350000000, SubAccountLocks1764400000000, UsersListIndex1764500000000, LearnerEnrollments1765500000000, TaskCompletions1766600000000, SignIns1766800000000, SubAccountClones1766900000000, InboxAge1767800000000, IdempotencyTokenReplies1768200000000];

@Module({
  imports: [GroupsModule, ImportProfileModule, NotificationTypesModule, CrmAccountsModule, UsersModule, IdentityDumpModule, SignInsModule, UserImportModule],
  controllers: [AuthHandlers, ApiTokensHandlers, CustomFieldsHandlers, UserFieldsHandlers, DirectoryHandlers, SubAccountClonesHandlers],
  providers: [
    AuthService,
    DirectoryService,
    tenantRepositoryProvider(User),
    tenantRepositoryProvider(SubAccount),
    tenantRepositoryProvider(Group),
    tenantRepositoryProvider(GroupMembership),
    ApiTokensService,
    tenantRepositoryProvider(ApiToken),
    CustomFieldsService,
    tenantRepositoryProvider(CustomField),
    SubAccountClonesService,
  ],
})
export class IdentityModule {}
