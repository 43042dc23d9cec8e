import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import {
  DIRECTORY_SEARCH_LIMIT,
  type DirectoryGroupMembersReply,
  type DirectorySubAccount,
  type DirectorySubAccountsReply,
  type DirectoryUser,
  type DirectoryUserSearchReply,
  type RequestContext,
} from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { SubAccount } from '../accounts/sub-account.entity.js';
import { GroupMembership } from '../groups/group-membership.entity.js';
import { Group } from '../groups/group.entity.js';
import { containsPattern } from '../groups/group.views.js';
import { User } from '../users/user.entity.js';
import { displayName } from '../users/user-view.js';

const toDirectorySubAccount = (s: SubAccount): DirectorySubAccount => ({ id: s.id, name: s.name, is_root: s.isRoot, locked_attributes: s.lockedAttributes });

@Injectable()
export class DirectoryService {
  constructor(
    @InjectTenantRepository(User) private readonly usersRepo: TenantRepository<User>,
    @InjectTenantRepository(SubAccount) private readonly subAccountsRepo: TenantRepository<SubAccount>,
    @InjectTenantRepository(Group) private readonly groupsRepo: TenantRepository<Group>,
    @InjectTenantRepository(GroupMembership) private readonly membershipsRepo: TenantRepository<GroupMembership>,
  ) {}

  /** Live, visible users whose name, username or e-mail contains the text; the lowest ids first, capped. */
  async search(scope: TenantScope, text: string): Promise<DirectoryUserSearchReply> {
    const rows = await this.usersRepo
      .query(scope, 'u')
      .select('u.id', 'id')
      .andWhere('u.deletedAt IS NULL AND u.hiddenAt IS NULL')
      .andWhere("(concat_ws(' ', u.first_name, u.last_name) ILIKE :pattern OR u.uid ILIKE :pattern OR u.email ILIKE :pattern)", { pattern: containsPattern(text) })
      .orderBy('u.id', 'ASC')
      .limit(DIRECTORY_SEARCH_LIMIT + 1)
      .getRawMany<{ id: number }>();
    return { ids: rows.slice(0, DIRECTORY_SEARCH_LIMIT).map((r) => Number(r.id)), truncated: rows.length > DIRECTORY_SEARCH_LIMIT };
  }

  /** The group's live learners (as its learner list shows them), or `exists: false` for no group of the account. */
  async groupMembers(scope: TenantScope, groupId: number): Promise<DirectoryGroupMembersReply> {
    if (!(await this.groupsRepo.findOne(scope, { id: groupId }))) return { exists: false, user_ids: [] };
    const rows = await this.usersRepo
      .query(scope, 'u')
      .select('u.id', 'id')
      .innerJoin(GroupMembership, 'm', 'm.accountId = u.accountId AND m.userId = u.id AND m.groupId = :groupId', { groupId })
      .andWhere('u.deletedAt IS NULL AND u.deletionRequestedAt IS NULL')
      .orderBy('u.id', 'ASC')
      .getRawMany<{ id: number }>();
    return { exists: true, user_ids: rows.map((r) => Number(r.id)) };
  }

  /** Which of these groups the user is a member of, lowest id first (a deleted group has no members). */
  async userGroups(scope: TenantScope, userId: number, groupIds: number[]): Promise<number[]> {
    if (groupIds.length === 0) return [];
    const rows = await this.membershipsRepo.find(scope, { where: { userId, groupId: In(groupIds) }, order: { groupId: 'ASC' } });
    return rows.map((m) => m.groupId);
  }

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
      manager_id: user.managerId,
    }));
  }

  async subAccounts(ctx: RequestContext, ids: number[]): Promise<DirectorySubAccountsReply> {
    const wanted = [...new Set([...ids, ...(ctx.subAccountId === null ? [] : [ctx.subAccountId])])];
    const [named, root, total] = await Promise.all([
      // A sub-account a clone is still making (or undoing) is nobody's yet.
      wanted.length > 0 ? this.subAccountsRepo.find(ctx, { where: { id: In(wanted), cloning: false } }) : Promise.resolve([]),
      this.subAccountsRepo.findOne(ctx, { isRoot: true }),
      this.subAccountsRepo.count(ctx, { cloning: false }),
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
