import { Module } from '@nestjs/common';
import { tenantRepositoryProvider } from '@lms/platform';
import { CustomField } from '../custom-fields/custom-field.entity.js';
import { UserCustomFieldValue } from '../users/user-custom-field-value.entity.js';
import { User } from '../users/user.entity.js';
import { UsersModule } from '../users/users.module.js';
import { UserImportHandlers } from './user-import.handlers.js';
import { UserImportService } from './user-import.service.js';

/** Users created and updated from the scheduled CSV import's rows, through the users service. */
@Module({
  imports: [UsersModule],
  controllers: [UserImportHandlers],
  providers: [UserImportService, tenantRepositoryProvider(User), tenantRepositoryProvider(UserCustomFieldValue), tenantRepositoryProvider(CustomField)],
})
export class UserImportModule {}
