import { Inject, Injectable } from '@nestjs/common';
import { In, Not } from 'typeorm';
import {
  type CustomFieldValueInput,
  type ListUsersQuery,
  MAX_ID,
  pageWindow,
  type RequestContext,
  type Role,
  ROLES,
  USER_CREATED_EVENT,
  USER_HIDDEN_EVENT,
  USER_ROLES_CHANGED_EVENT,
  USER_UPDATED_EVENT,
  type UserAttributes,
  type UserRequest,
  type UserRolesEventData,
  type UserUpdateRequest,
} from '@lms/contracts';
import { Database, InjectTenantRepository, isUniqueViolation, MESSAGE_BUS, type ListSize, type MessageBus, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { CustomField } from '../custom-fields/custom-field.entity.js';
import { UserCustomFieldValue } from './user-custom-field-value.entity.js';
import { User } from './user.entity.js';
import {
  cannotDemoteSelf,
  cannotHideSelf,
  emptyUpdate,
  hrisIdTaken,
  managerNotFound,
  ownManager,
  repeatedCustomField,
  uidTaken,
  unknownCustomField,
  userNotDeleted,
} from './user.errors.js';
import { keepAnAdmin } from './last-admin.js';
import { dropCachedPrincipals } from './principal-invalidation.js';
import { UserFinder, type UserRef } from './user-finder.js';
import { userEventData } from './user-view.js';

/** Attributes copied from a request as they are (`null` clears). */
export const PLAIN_ATTRIBUTES = [
  ['first_name', 'firstName'],
  ['last_name', 'lastName'],
  ['full_name', 'fullName'],
  ['sortable_name', 'sortableName'],
  ['email', 'email'],
  ['hire_date', 'hireDate'],
  ['job_title', 'jobTitle'],
  ['department', 'department'],
  ['hris_id', 'hrisId'],
  ['avatar_url', 'avatarUrl'],
] as const satisfies readonly (readonly [keyof UserAttributes, keyof User])[];

/** A locale as users store it: canonical, so `en-us` and `en-US` are one (a RangeError for text that is no locale). */
export const canonicalLocale = (locale: string | null): string | null => (locale === null ? null : Intl.getCanonicalLocales(locale)[0]);

/** Sets the attributes `input` gives on `user`; uid, manager and custom fields are the caller's. */
export function applyAttributes(user: Partial<User>, input: UserAttributes): void {
  for (const [from, to] of PLAIN_ATTRIBUTES) {
    const value = input[from];
    if (value !== undefined) Object.assign(user, { [to]: value });
  }
  if (input.locale !== undefined) user.locale = canonicalLocale(input.locale);
}

/** The attributes of `input`, by their request names, whose values differ from the user's. */
export function attributeChanges(user: User, input: UserAttributes): string[] {
  const changed: string[] = PLAIN_ATTRIBUTES.filter(([from, to]) => input[from] !== undefined && input[from] !== user[to]).map(([from]) => from);
  if (input.locale !== undefined && canonicalLocale(input.locale) !== user.locale) changed.push('locale');
  return changed;
}

/** `%`, `_` and `\` match themselves in a search. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Field names in errors: `users[0].uid` for a create, `user.uid` for an update. */
type FieldPrefix = 'users[0]' | 'user';

@Injectable()
export class UsersService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly finder: UserFinder,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectTenantRepository(User) private readonly users: TenantRepository<User>,
    @InjectTenantRepository(UserCustomFieldValue) private readonly values: TenantRepository<UserCustomFieldValue>,
    @InjectTenantRepository(CustomField) private readonly customFields: TenantRepository<CustomField>,
  ) {}

  /** A new learner: roles are never taken from the request. */
  async create(scope: TenantScope, input: UserRequest): Promise<User> {
    const prefix = 'users[0]';
    await this.checkUnique(scope, input, prefix);
    const managerId = input.manager_id === undefined || input.manager_id === null ? null : await this.managerIdOf(scope, input.manager_id, prefix);
    return this.uniqueViolations(input, prefix, () =>
      this.db.transaction(async () => {
        const values = await this.checkCustomFields(scope, input.custom_fields ?? [], prefix);
        const user = new User();
        applyAttributes(user, input);
        const saved = await this.users.insert(scope, { ...user, uid: input.uid, managerId, roles: ['learner'] });
        await this.writeCustomFields(scope, saved.id, values);
        await this.outbox.add(scope, USER_CREATED_EVENT, userEventData(saved));
        return saved;
      }),
    );
  }

  async update(scope: TenantScope, ref: UserRef, input: UserUpdateRequest): Promise<User> {
    const prefix = 'user';
    if (Object.values(input).every((value) => value === undefined)) throw emptyUpdate();
    return this.uniqueViolations(input, prefix, () =>
      this.db.transaction(async () => {
        // Locked: `save` writes every column this copy differs in, so a copy read before a concurrent role
        // change or deletion committed would undo it; and two edits setting one custom field would both insert it.
        const user = await this.finder.get(scope, ref, { lock: 'update' });
        await this.checkUnique(scope, input, prefix, user.id);
        let managerId = user.managerId;
        if (input.manager_id !== undefined) {
          managerId = input.manager_id === null ? null : await this.managerIdOf(scope, input.manager_id, prefix);
          if (managerId === user.id) throw ownManager();
        }
        const values = await this.checkCustomFields(scope, input.custom_fields ?? [], prefix);
        applyAttributes(user, input);
        if (input.uid !== undefined) user.uid = input.uid;
        user.managerId = managerId;
        const saved = await this.users.save(scope, user);
        await this.writeCustomFields(scope, saved.id, values);
        await this.outbox.add(scope, USER_UPDATED_EVENT, userEventData(saved));
        return saved;
      }),
    );
  }

  /** Live users by id; deleted ones with `with_deleted` or only them with `only_deleted`; hidden users never. */
  list(scope: TenantScope, query: ListUsersQuery): Promise<{ rows: User[]; total: ListSize; next?: string }> {
    const qb = this.users.query(scope, 'u').withDeleted().andWhere('u.hidden_at IS NULL');
    if (query.only_deleted) qb.andWhere('u.deleted_at IS NOT NULL');
    else if (!query.with_deleted) qb.andWhere('u.deleted_at IS NULL');
    if (query.search !== undefined) {
      qb.andWhere(
        `(u.first_name ILIKE :q OR u.last_name ILIKE :q OR u.full_name ILIKE :q OR concat_ws(' ', u.first_name, u.last_name) ILIKE :q
          OR u.uid ILIKE :q OR u.email ILIKE :q)`,
        { q: likePattern(query.search) },
      );
    }
    return this.users.page(qb, 'u', pageWindow(query));
  }

  /** Hides a deleted user from every answer for good. */
  async hide(ctx: RequestContext, ref: UserRef): Promise<void> {
    await this.db.transaction(async () => {
      const user = await this.finder.get(ctx, ref, { withDeleted: true, lock: 'update' });
      if (user.id === ctx.userId) throw cannotHideSelf();
      if (user.deletedAt === null) throw userNotDeleted(ref);
      user.hiddenAt = new Date();
      const saved = await this.users.save(ctx, user);
      await this.outbox.add(ctx, USER_HIDDEN_EVENT, userEventData(saved));
    });
  }

  /**
   * Replaces a user's roles. An administrator cannot drop their own admin role, and the last one cannot be
   * demoted by anybody, so an account always keeps one. Cached principals are dropped after the commit: the
   * new roles count from the very next request.
   */
  async setRoles(ctx: RequestContext, ref: UserRef, roles: Role[]): Promise<User> {
    const user = await this.db.transaction(async () => {
      const found = await this.finder.get(ctx, ref, { lock: 'update' });
      if (found.id === ctx.userId && !roles.includes('admin')) throw cannotDemoteSelf();
      if (found.roles.includes('admin') && !roles.includes('admin')) await keepAnAdmin(this.db, ctx, found.id);
      found.roles = ROLES.filter((role) => roles.includes(role));
      const saved = await this.users.save(ctx, found);
      const data: UserRolesEventData = { ...userEventData(saved), roles: saved.roles };
      await this.outbox.add(ctx, USER_ROLES_CHANGED_EVENT, data);
      return saved;
    });
    dropCachedPrincipals(this.bus, ctx, user.id);
    return user;
  }


  /** uid and hris_id are unique in the account, deleted users included (their uid stays reserved). */
  private async checkUnique(scope: TenantScope, input: { uid?: string; hris_id?: string | null }, prefix: FieldPrefix, self?: number): Promise<void> {
    const others = self === undefined ? {} : { id: Not(self) };
    if (input.uid !== undefined && (await this.users.findOne(scope, { uid: input.uid, ...others }, { withDeleted: true }))) throw uidTaken(input.uid, `${prefix}.uid`);
    if (typeof input.hris_id === 'string' && (await this.users.findOne(scope, { hrisId: input.hris_id, ...others }, { withDeleted: true }))) {
      throw hrisIdTaken(input.hris_id, `${prefix}.hris_id`);
    }
  }

  /** A manager is an active user of the account. */
  private async managerIdOf(scope: TenantScope, ref: UserRef, prefix: FieldPrefix): Promise<number> {
    const manager = await this.finder.find(scope, ref);
    if (!manager) throw managerNotFound(ref, `${prefix}.manager_id`);
    return manager.id;
  }

  /**
   * Every named custom field exists in the account, each named once; answers the values to write. The fields
   * stay (`FOR KEY SHARE`) until the values are written: a field deleted meanwhile is a 400, not a 409.
   */
  private async checkCustomFields(scope: TenantScope, inputs: CustomFieldValueInput[], prefix: FieldPrefix): Promise<{ fieldId: number; value: string | null }[]> {
    const seen = new Set<string>();
    inputs.forEach((input, i) => {
      if (seen.has(input.id)) throw repeatedCustomField(input.id, `${prefix}.custom_fields[${i}].id`);
      seen.add(input.id);
    });
    const ids = inputs.map((input) => Number(input.id)).filter((id) => id <= MAX_ID);
    const existing = new Set(ids.length === 0 ? [] : (await this.customFields.find(scope, { where: { id: In(ids) }, lock: 'key share' })).map((f) => f.id));
    inputs.forEach((input, i) => {
      if (!existing.has(Number(input.id))) throw unknownCustomField(input.id, `${prefix}.custom_fields[${i}].id`);
    });
    return inputs.map((input) => ({ fieldId: Number(input.id), value: input.value }));
  }

  /** Sets the given values (insert or replace); a null value removes the user's value of that field. */
  private async writeCustomFields(scope: TenantScope, userId: number, values: { fieldId: number; value: string | null }[]): Promise<void> {
    for (const { fieldId, value } of values) {
      const existing = await this.values.findOne(scope, { userId, customFieldId: fieldId });
      if (value === null) {
        if (existing) await this.values.remove(scope, existing);
      } else if (existing) {
        existing.value = value;
        await this.values.save(scope, existing);
      } else {
        await this.values.insert(scope, { userId, customFieldId: fieldId, value });
      }
    }
  }

  /** Two requests racing for one uid or hris_id: the unique index decides, the loser gets the same 400 as a late one. */
  private async uniqueViolations<T>(input: { uid?: string; hris_id?: string | null }, prefix: FieldPrefix, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const constraint = (err as { constraint?: string }).constraint;
      if (constraint === 'users_account_hris_id') throw hrisIdTaken(input.hris_id ?? '', `${prefix}.hris_id`);
      if (constraint === 'users_account_uid') throw uidTaken(input.uid ?? '', `${prefix}.uid`);
      throw err;
    }
  }
}
