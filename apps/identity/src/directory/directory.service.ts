import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import type { DirectorySubAccount, DirectorySubAccountsReply, DirectoryUser, RequestContext } from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { SubAccount } from '../accounts/sub-account.entity.js';
import { User } from '../users/user.entity.js';
import { displayName } from '../users/user-view.js';

const toDirectorySubAccount = (s: SubAccount): DirectorySubAccount => ({ id: s.id, name: s.name, is_root: s.isRoot, locked_attributes: s.lockedAttributes });

@Injectable()
export class DirectoryService {
  constructor(
    @InjectTenantRepository(User) private readonly usersRepo: TenantRepository<User>,
    @InjectTenantRepository(SubAccount) private readonly subAccountsRepo: TenantRepository<SubAccount>,
  ) {}

  /** Deleted users are answered (with deleted_at; a pending deletion counts as deleted); hidden ones are nobody. */
  async users(scope: TenantScope, ids: number[]): Promise<DirectoryUser[]> {
    if (ids.length === 0) return [];
    const rows = await this.usersRepo.find(scope, { where: { id: In(ids), hiddenAt: IsNull() }, withDeleted: true });
    return rows.map((user) => ({
      id: user.id,
      uid: user.uid,
      name: displayName(user),
      email: user.email,
      avatar_url: user.avatarUrl,
      roles: user.roles,
      deleted_at: (user.deletedAt ?? user.deletionRequestedAt)?.toISOString() ?? null,
    }));
  }

  async subAccounts(ctx: RequestContext, ids: number[]): Promise<DirectorySubAccountsReply> {
    const wanted = [...new Set([...ids, ...(ctx.subAccountId === null ? [] : [ctx.subAccountId])])];
    const [named, root, total] = await Promise.all([
      wanted.length > 0 ? this.subAccountsRepo.find(ctx, { where: { id: In(wanted) } }) : Promise.resolve([]),
      this.subAccountsRepo.findOne(ctx, { isRoot: true }),
      this.subAccountsRepo.count(ctx),
    ]);
    const current = ctx.subAccountId === null ? root : (named.find((s) => s.id === ctx.subAccountId) ?? root);
    return {
      current: current && toDirectorySubAccount(current),
      root: root && toDirectorySubAccount(root),
      sub_accounts_exist: total > 1,
      sub_accounts: named.filter((s) => ids.includes(s.id)).map(toDirectorySubAccount),
    };
  }
}
