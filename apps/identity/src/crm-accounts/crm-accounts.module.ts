import { Module } from '@nestjs/common';
import { CrmAccountsHandlers } from './crm-accounts.handlers.js';
import { CrmAccountsService } from './crm-accounts.service.js';

@Module({
  controllers: [CrmAccountsHandlers],
  providers: [CrmAccountsService],
})
export class CrmAccountsModule {}
