import { Injectable } from '@nestjs/common';
import type { CrmAccountView } from '@lms/contracts';
import { Database, type TenantScope } from '@lms/platform';
import { Account } from '../accounts/account.entity.js';
import { crmAccountNotFound } from './crm-account.errors.js';

@Injectable()
export class CrmAccountsService {
  constructor(private readonly db: Database) {}

  /**
   * An administrator sees only their own account: any other id answers 404, as for every resource of
   * another tenant, so the answer never reveals which account ids exist.
   */
  async show(scope: TenantScope, id: number): Promise<CrmAccountView> {
    if (id !== scope.accountId) throw crmAccountNotFound(id);
    // The account is the tenant itself, not a tenant-owned row: looked up by the caller's own id.
    const account = await this.db.manager.getRepository(Account).findOneBy({ id: scope.accountId });
    if (!account) throw crmAccountNotFound(id);
    return { id: account.id, name: account.name };
  }
}
