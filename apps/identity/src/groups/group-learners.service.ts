import { Injectable } from '@nestjs/common';
import {
  GROUP_MEMBERSHIP_ADDED_EVENT,
  GROUP_MEMBERSHIP_REMOVED_EVENT,
  pageWindow,
  type GroupMembershipEventData,
  type ListGroupLearnersQuery,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { User } from '../users/user.entity.js';
import { GroupMembership } from './group-membership.entity.js';
import { groupUserNotFound } from './group.errors.js';
import { containsPattern, type LearnerSource } from './group.views.js';
import { type CountedGroup, GroupsService } from './groups.service.js';

/** The learner's display name in SQL, exactly as `learnerName` builds it, so sorting matches what is shown. */
const NAME_SQL = "coalesce(nullif(concat_ws(' ', nullif(btrim(u.first_name), ''), nullif(btrim(u.last_name), '')), ''), u.uid)";

/** Only the user columns a learner shows: the users feature owns (and grows) the rest of the row. */
const LEARNER_COLUMNS = ['u.id', 'u.uid', 'u.firstName', 'u.lastName', 'u.email', 'u.avatarUrl'];

export interface GroupLearners {
  group: CountedGroup;
  learners: LearnerSource[];
}

@Injectable()
export class GroupLearnersService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly groups: GroupsService,
    @InjectTenantRepository(User) private readonly users: TenantRepository<User>,
    @InjectTenantRepository(GroupMembership) private readonly memberships: TenantRepository<GroupMembership>,
  ) {}

  /**
   * Adds live users of the account to the group. All or nothing: one unknown (or deleted, or foreign) user
   * is a 404 and adds nobody. Members already in the group stay as they are; only new rows get an event.
   * Answers the learners the request named, in its order, whether they were new or not.
   */
  async add(scope: TenantScope, groupId: number, userIds: number[]): Promise<GroupLearners> {
    const ids = [...new Set(userIds)];
    const learners = await this.db.transaction(async () => {
      // FOR SHARE: a concurrent delete of the group waits for this add instead of failing its foreign key.
      const group = await this.groups.find(scope, groupId, 'share');
      const users = await this.liveUsers(scope, ids);
      const missing = ids.filter((id) => !users.has(id));
      if (missing.length > 0) throw groupUserNotFound(missing);
      const inserted = await this.insertMemberships(scope, group.id, ids);
      const events = inserted.map((userId) => ({ data: { group_id: group.id, user_id: userId } satisfies GroupMembershipEventData, subject: String(group.id) }));
      await this.outbox.addAll(scope, GROUP_MEMBERSHIP_ADDED_EVENT, events);
      return ids.flatMap((id) => users.get(id) ?? []);
    });
    return { group: await this.groups.show(scope, groupId), learners };
  }

  /** Live members only, searched in first name, last name, full name, username and e-mail, sorted by the shown name. */
  async list(scope: TenantScope, groupId: number, query: ListGroupLearnersQuery): Promise<[GroupLearners, number]> {
    const group = await this.groups.show(scope, groupId);
    const { skip, take } = pageWindow(query);
    const qb = this.users
      .query(scope, 'u')
      .select(LEARNER_COLUMNS)
      .innerJoin(GroupMembership, 'm', 'm.accountId = u.accountId AND m.userId = u.id AND m.groupId = :groupId', { groupId })
      .andWhere('u.deletedAt IS NULL');
    if (query.search) {
      qb.andWhere(
        "(concat_ws(' ', u.first_name, u.last_name) ILIKE :pattern OR u.uid ILIKE :pattern OR u.email ILIKE :pattern)",
        { pattern: containsPattern(query.search) },
      );
    }
    const direction = query.sort === '-name' ? 'DESC' : 'ASC';
    const [rows, total] = await qb
      .orderBy(`lower(${NAME_SQL})`, direction)
      .addOrderBy('u.id', direction)
      .offset(skip)
      .limit(take)
      .getManyAndCount();
    return [{ group, learners: rows }, total];
  }

  /**
   * Removes one membership. A user of the account who is not a member is a 204 with nothing to do (the spec
   * lists only 204: a script that runs its removals again must not stop); an id that names no user is a 404.
   */
  async remove(scope: TenantScope, groupId: number, userId: number): Promise<void> {
    await this.db.transaction(async () => {
      const group = await this.groups.find(scope, groupId, 'share');
      if ((await this.memberships.delete(scope, { groupId: group.id, userId })) === 0) {
        if (!(await this.users.findOne(scope, { id: userId }, { withDeleted: true }))) throw groupUserNotFound([userId]);
        return;
      }
      const data: GroupMembershipEventData = { group_id: group.id, user_id: userId };
      await this.outbox.add(scope, GROUP_MEMBERSHIP_REMOVED_EVENT, data, String(group.id));
    });
  }

  /**
   * FOR KEY SHARE, to the end of the add: a deletion of one of them (which locks the user's row) waits for the
   * add, or went first and the user is found deleted (404). Read unlocked, a user deleted meanwhile was added
   * after the deletion committed, its `group_membership.added` after its `user.deleted`.
   */
  private async liveUsers(scope: TenantScope, ids: number[]): Promise<Map<number, LearnerSource>> {
    const rows = await this.users
      .query(scope, 'u')
      .select(LEARNER_COLUMNS)
      .andWhere('u.id IN (:...ids)', { ids })
      .andWhere('u.deletedAt IS NULL')
      .setLock('for_key_share')
      .getMany();
    return new Map(rows.map((user) => [user.id, user]));
  }

  /**
   * ON CONFLICT DO NOTHING on the (account, group, user) key: a second add, even a concurrent one, changes nothing.
   * Rows go in by user id: two adds naming the same users in other orders would each wait on a row the other
   * inserted first, and deadlock.
   */
  private async insertMemberships(scope: TenantScope, groupId: number, userIds: number[]): Promise<number[]> {
    const byId = [...userIds].sort((a, b) => a - b);
    const inserted = await this.memberships.insertNew(scope, byId.map((userId) => ({ groupId, userId })), ['user_id']);
    return inserted.map((row) => Number(row.user_id));
  }
}
