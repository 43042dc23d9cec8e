import { Injectable } from '@nestjs/common';
import {
  GROUP_CREATED_EVENT,
  GROUP_DELETED_EVENT,
  GROUP_UPDATED_EVENT,
  pageWindow,
  parentIdOf,
  type GroupChanges,
  type GroupInput,
  type ListGroupsQuery,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope, unlessTaken } from '@lms/platform';
import { User } from '../users/user.entity.js';
import { GroupMembership } from './group-membership.entity.js';
import { Group } from './group.entity.js';
import { groupCycle, groupHasChildren, groupNameTaken, groupNotFound, groupParentNotFound } from './group.errors.js';
import { containsPattern, groupEventData } from './group.views.js';

/** A group with its count of live direct members, as every response shows it. */
export interface CountedGroup {
  group: Group;
  usersCount: number;
}

@Injectable()
export class GroupsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(Group) private readonly groups: TenantRepository<Group>,
    @InjectTenantRepository(GroupMembership) private readonly memberships: TenantRepository<GroupMembership>,
  ) {}

  async list(scope: TenantScope, query: ListGroupsQuery): Promise<[CountedGroup[], number]> {
    const { skip, take } = pageWindow(query);
    const qb = this.groups.query(scope, 'g');
    if (query.search) qb.andWhere('g.name ILIKE :pattern', { pattern: containsPattern(query.search) });
    if (query.type) qb.andWhere('g.type = :type', { type: query.type });
    const [rows, total] = await qb.orderBy('g.id', 'ASC').offset(skip).limit(take).getManyAndCount();
    return [await this.withCounts(scope, rows), total];
  }

  async show(scope: TenantScope, id: number): Promise<CountedGroup> {
    const [counted] = await this.withCounts(scope, [await this.find(scope, id)]);
    return counted;
  }

  /** The group, or a 404 (`share` locks it against a concurrent delete until the transaction ends). */
  async find(scope: TenantScope, id: number, lock?: 'share'): Promise<Group> {
    const qb = this.groups.query(scope, 'g').andWhere('g.id = :id', { id });
    if (lock) qb.setLock('pessimistic_read');
    return (await qb.getOne()) ?? Promise.reject(groupNotFound(id));
  }

  /** Members that are not deleted, per group: deleted users stay members (a restore brings them back) but are not counted. */
  async usersCounts(scope: TenantScope, groupIds: number[]): Promise<Map<number, number>> {
    if (groupIds.length === 0) return new Map();
    const rows: { group_id: number; n: number }[] = await this.memberships
      .query(scope, 'm')
      .innerJoin(User, 'u', 'u.id = m.userId AND u.accountId = m.accountId AND u.deletedAt IS NULL')
      .andWhere('m.groupId IN (:...groupIds)', { groupIds })
      .select('m.groupId', 'group_id')
      .addSelect('count(*)::int', 'n')
      .groupBy('m.groupId')
      .getRawMany();
    return new Map(rows.map((row) => [Number(row.group_id), Number(row.n)]));
  }

  /** All or nothing: one bad element rejects the whole array. */
  async create(scope: TenantScope, inputs: GroupInput[]): Promise<CountedGroup[]> {
    return this.db.transaction(async () => {
      await this.lockTree(scope);
      const created: Group[] = [];
      for (const [i, input] of inputs.entries()) {
        const parentId = parentIdOf(input.parent_id);
        const name = input.name.trim();
        if (parentId !== null) await this.requireParent(scope, parentId, `groups[${i}].parent_id`);
        if (await this.siblingNamed(scope, parentId, name)) throw groupNameTaken(name, `groups[${i}].name`);
        const group = await unlessTaken(() => this.groups.insert(scope, { name, type: input.type ?? 'group', parentId }), () => groupNameTaken(name, `groups[${i}].name`));
        await this.outbox.add(scope, GROUP_CREATED_EVENT, groupEventData(group), String(group.id));
        created.push(group);
      }
      return created.map((group) => ({ group, usersCount: 0 }));
    });
  }

  async update(scope: TenantScope, id: number, changes: GroupChanges): Promise<CountedGroup> {
    const saved = await this.db.transaction(async () => {
      await this.lockTree(scope);
      const group = await this.find(scope, id);
      const before = groupEventData(group);
      const parentId = changes.parent_id === undefined ? group.parentId : parentIdOf(changes.parent_id);
      const name = changes.name === undefined ? group.name : changes.name.trim();
      if (parentId !== null && parentId !== group.parentId) {
        await this.requireParent(scope, parentId, 'group.parent_id');
        if (await this.isSelfOrAncestor(scope, group.id, parentId)) throw groupCycle(group.id, parentId);
      }
      if ((parentId !== group.parentId || name.toLowerCase() !== group.name.toLowerCase()) && (await this.siblingNamed(scope, parentId, name, group.id))) {
        throw groupNameTaken(name, 'group.name');
      }
      Object.assign(group, { parentId, name, type: changes.type ?? group.type });
      const after = groupEventData(group);
      if (JSON.stringify(after) === JSON.stringify(before)) return group; // nothing changed, nothing to announce
      const row = await unlessTaken(() => this.groups.save(scope, group), () => groupNameTaken(name, 'group.name'));
      await this.outbox.add(scope, GROUP_UPDATED_EVENT, after, String(row.id));
      return row;
    });
    const [counted] = await this.withCounts(scope, [saved]);
    return counted;
  }

  /**
   * Deletes the group with its memberships (one `identity.group.deleted` event stands for all of them).
   * A group with children is refused: silently re-parenting or cascading them would surprise an author.
   */
  async delete(scope: TenantScope, id: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.lockTree(scope);
      const group = await this.find(scope, id);
      if ((await this.groups.count(scope, { parentId: group.id })) > 0) throw groupHasChildren(group.id);
      const snapshot = groupEventData(group);
      await this.groups.remove(scope, group); // memberships go with it (ON DELETE CASCADE)
      await this.outbox.add(scope, GROUP_DELETED_EVENT, snapshot, String(snapshot.id));
    });
  }

  private async withCounts(scope: TenantScope, groups: Group[]): Promise<CountedGroup[]> {
    const counts = await this.usersCounts(scope, groups.map((g) => g.id));
    return groups.map((group) => ({ group, usersCount: counts.get(group.id) ?? 0 }));
  }

  /**
   * Serialises changes to one account's group tree, so two concurrent moves cannot together build a
   * cycle that each check alone would have refused. Group edits are rare; memberships do not take it.
   */
  private async lockTree(scope: TenantScope): Promise<void> {
    await this.db.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`identity.groups:${scope.accountId}`]);
  }

  private async requireParent(scope: TenantScope, parentId: number, field: string): Promise<void> {
    if ((await this.groups.count(scope, { id: parentId })) === 0) throw groupParentNotFound(parentId, field);
  }

  private async siblingNamed(scope: TenantScope, parentId: number | null, name: string, exceptId?: number): Promise<boolean> {
    const qb = this.groups
      .query(scope, 'g')
      .andWhere('lower(g.name) = lower(:name)', { name })
      .andWhere(parentId === null ? 'g.parentId IS NULL' : 'g.parentId = :parentId', { parentId });
    if (exceptId !== undefined) qb.andWhere('g.id <> :exceptId', { exceptId });
    return (await qb.getCount()) > 0;
  }

  /** True when `candidate` is `groupId` itself or one of its descendants, i.e. `groupId` is among the candidate's ancestors. */
  private async isSelfOrAncestor(scope: TenantScope, groupId: number, candidate: number): Promise<boolean> {
    // UNION (not UNION ALL) ends the walk even on a cycle that should not exist.
    const rows: unknown[] = await this.db.manager.query(
      `WITH RECURSIVE up(id, parent_id) AS (
         SELECT id, parent_id FROM identity.groups WHERE account_id = $1 AND id = $2
         UNION
         SELECT g.id, g.parent_id FROM identity.groups g JOIN up ON g.id = up.parent_id WHERE g.account_id = $1
       )
       SELECT 1 FROM up WHERE id = $3 LIMIT 1`,
      [scope.accountId, candidate, groupId],
    );
    return rows.length > 0;
  }
}
