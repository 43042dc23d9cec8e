import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import {
  type FieldError,
  MAX_ID,
  USER_CREATED_EVENT,
  USER_UPDATED_EVENT,
  type ImportRowInput,
  type ImportRowOutcome,
  type ImportRowsReply,
  type RequestContext,
  UserRequest,
  validateInput,
} from '@lms/contracts';
import { Database, DomainError, InjectTenantRepository, isUniqueViolation, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { CustomField } from '../custom-fields/custom-field.entity.js';
import { UserCustomFieldValue } from '../users/user-custom-field-value.entity.js';
import { User } from '../users/user.entity.js';
import { refWhere, UserFinder, type UserRef } from '../users/user-finder.js';
import { applyAttributes, attributeChanges, canonicalLocale, PLAIN_ATTRIBUTES, UsersService } from '../users/users.service.js';
import { userEventData } from '../users/user-view.js';

/** Thrown to roll a dry run's transaction back once its outcome is known. */
class DryRunRollback<T> extends Error {
  constructor(readonly outcome: T) {
    super('dry run');
  }
}

const errorsOf = (err: unknown): { field: string | null; message: string }[] => {
  if (err instanceof DomainError) {
    const fields = (err.errors ?? []).map((e: FieldError) => ({ field: e.field.replace(/^(users\[0\]|user)\./, '').replace(/^(users\[0\]|user)$/, '') || null, message: e.message }));
    return fields.length > 0 ? fields : [{ field: null, message: err.detail ?? err.title }];
  }
  throw err; // an infrastructure failure fails the batch (the job retries), never one row
};

interface ValidRow {
  index: number;
  line: number;
  input: UserRequest;
}

/** A row whose outcome the batch's reads settle, with what it writes (nothing when unchanged or failed). */
interface PlannedRow {
  index: number;
  outcome: ImportRowOutcome;
  create?: { input: UserRequest; managerId: number | null };
  update?: { input: UserRequest; user: User; managerId: number | null; changes: Set<string> };
}

/** The batch's writes met a user created, or an hris_id taken, after its reads: it rolls back and goes row by row. */
class BatchRaced extends Error {
  constructor() {
    super('the batch raced a concurrent change');
  }
}

const deletedUser = (line: number, uid: string): ImportRowOutcome => ({
  line,
  uid,
  outcome: 'failed',
  errors: [{ field: 'uid', message: `user ${uid} is deleted; an import does not restore users` }],
});

const definedKeys = (input: UserRequest): string[] => Object.keys(input).filter((k) => (input as unknown as Record<string, unknown>)[k] !== undefined);

/** Whether the row's locale (if it names one) is one users can store; the users service refuses the others. */
function storableLocale(locale: string | null | undefined): boolean {
  try {
    if (locale !== undefined) canonicalLocale(locale);
    return true;
  } catch {
    return false;
  }
}

/** Every column `write` sets: the user's attributes after `input` over `user`'s (a new user's over nothing), null when unset. */
function attributesOf(input: UserRequest, user: User | null): Partial<User> {
  const next: Partial<User> = { ...user };
  applyAttributes(next, input);
  const out: Partial<User> = { locale: next.locale ?? null };
  for (const [, to] of PLAIN_ATTRIBUTES) Object.assign(out, { [to]: next[to] ?? null });
  return out;
}

/** The user a manager reference names among `users` (as `UserFinder.find` would: live, not hidden). */
function findRef(users: User[], ref: UserRef): User | null {
  const where = refWhere(ref);
  if (!where) return null;
  return users.find((u) => u.deletedAt === null && ('id' in where ? u.id === where.id : u.uid === where.uid)) ?? null;
}

/**
 * Applies mapped CSV rows (the import worker's batches) through the users service, so an imported user
 * meets exactly the rules of `POST /api/admin/users` and `PATCH /api/admin/users/:id`: the same DTO
 * validation, uniqueness, manager and custom field checks, events. A row's uid finds its user; a row
 * that changes nothing is `unchanged`; an import never deletes a user. A batch is read and written a
 * statement per kind of read or write (`plan`, `write`), not per row; a row whose outcome those reads cannot
 * settle goes through the users service on its own. A dry run does the same in transactions it rolls back,
 * so it answers what would happen and changes nothing.
 */
@Injectable()
export class UserImportService {
  constructor(
    private readonly db: Database,
    private readonly users: UsersService,
    private readonly outbox: Outbox,
    private readonly finder: UserFinder,
    @InjectTenantRepository(User) private readonly userRows: TenantRepository<User>,
    @InjectTenantRepository(UserCustomFieldValue) private readonly values: TenantRepository<UserCustomFieldValue>,
    @InjectTenantRepository(CustomField) private readonly customFields: TenantRepository<CustomField>,
  ) {}

  async importRows(ctx: RequestContext, rows: ImportRowInput[], dryRun: boolean): Promise<ImportRowsReply> {
    const outcomes: ImportRowOutcome[] = [];
    const valid: ValidRow[] = [];
    for (const [index, row] of rows.entries()) {
      const checked = await validateInput<UserRequest>(UserRequest, row.user);
      if (checked.ok) valid.push({ index, line: row.line, input: checked.value });
      else outcomes[index] = { line: row.line, uid: typeof row.user.uid === 'string' ? row.user.uid : null, outcome: 'failed', errors: checked.errors.map((e) => ({ field: e.field || null, message: e.message })) };
    }
    let oneByOne = valid;
    try {
      // A dry run writes as a run would, then rolls back: it meets the same races and constraints.
      const { planned, rest } = await this.db
        .transaction(async () => {
          const plan = await this.plan(ctx, valid);
          await this.write(ctx, plan.planned);
          if (dryRun) throw new DryRunRollback(plan);
          return plan;
        })
        .catch((err: unknown) => (err instanceof DryRunRollback ? (err.outcome as Awaited<ReturnType<UserImportService['plan']>>) : Promise.reject(err)));
      for (const row of planned) outcomes[row.index] = row.outcome;
      oneByOne = rest;
    } catch (err) {
      // The batch's writes met a change its reads did not see (a user created or given that hris_id meanwhile):
      // nothing of it was written, and every row is done on its own, as a row that loses such a race always was.
      if (!(err instanceof BatchRaced) && !isUniqueViolation(err)) throw err;
    }
    for (const row of oneByOne) outcomes[row.index] = await this.importRow(ctx, row, dryRun);
    const account_users = await this.userRows.count(ctx, { hiddenAt: IsNull() });
    return { outcomes, account_users };
  }

  /**
   * What the batch does, read with one statement per kind (its users by uid, their managers, hris_ids and custom
   * values, the custom fields), as `apply` would find it row by row. A row is planned only when that answer is
   * certain: it creates, updates with exactly the changes `changedFields` finds, changes nothing, or names a
   * deleted user. The others (a uid or hris_id a row before it names, a manager, custom field or hris_id that
   * would be refused, a null custom value) are left for `importRow`, whose outcome and errors are the API's.
   * The batch's users stay as read until the transaction ends.
   */
  private async plan(scope: TenantScope, rows: ValidRow[]): Promise<{ planned: PlannedRow[]; rest: ValidRow[] }> {
    if (rows.length === 0) return { planned: [], rest: [] };
    const inputs = rows.map((row) => row.input);
    const users = new Map(
      (await this.userRows.find(scope, { where: { uid: In(inputs.map((i) => i.uid)) }, withDeleted: true, order: { id: 'ASC' }, lock: 'update' })).map((u) => [u.uid, u]),
    );
    const managerRefs = inputs.flatMap((i) => (i.manager_id === undefined || i.manager_id === null ? [] : [refWhere(i.manager_id)])).filter((w) => w !== null);
    const managerIds = managerRefs.flatMap((w) => ('id' in w ? [w.id] : []));
    const managerUids = managerRefs.flatMap((w) => ('uid' in w ? [w.uid] : []));
    const managers = [
      ...(managerIds.length > 0 ? await this.userRows.find(scope, { where: { id: In(managerIds), hiddenAt: IsNull() } }) : []),
      ...(managerUids.length > 0 ? await this.userRows.find(scope, { where: { uid: In(managerUids), hiddenAt: IsNull() } }) : []),
    ];
    const hrisIds = inputs.flatMap((i) => (typeof i.hris_id === 'string' ? [i.hris_id] : []));
    const hrisOwners = new Map(
      (hrisIds.length > 0 ? await this.userRows.find(scope, { where: { hrisId: In(hrisIds) }, withDeleted: true }) : []).map((u) => [u.hrisId, u.id]),
    );
    const fieldIds = [...new Set(inputs.flatMap((i) => (i.custom_fields ?? []).map((c) => Number(c.id)).filter((id) => id <= MAX_ID)))];
    const fields = new Set(
      (fieldIds.length > 0 ? await this.customFields.find(scope, { where: { id: In(fieldIds) }, lock: 'key share' }) : []).map((f) => f.id),
    );
    const valued = [...users.values()].filter((u) => inputs.some((i) => i.uid === u.uid && (i.custom_fields ?? []).length > 0)).map((u) => u.id);
    const values = new Map<number, Map<string, string>>();
    for (const v of valued.length > 0 ? await this.values.find(scope, { where: { userId: In(valued) } }) : []) {
      if (!values.has(v.userId)) values.set(v.userId, new Map());
      values.get(v.userId)?.set(String(v.customFieldId), v.value);
    }

    const planned: PlannedRow[] = [];
    const rest: ValidRow[] = [];
    const seenUids = new Set<string>();
    const seenHris = new Set<string>();
    for (const row of rows) {
      const { input, line } = row;
      const first = !seenUids.has(input.uid) && !(typeof input.hris_id === 'string' && seenHris.has(input.hris_id));
      seenUids.add(input.uid);
      if (typeof input.hris_id === 'string') seenHris.add(input.hris_id);
      const user = users.get(input.uid) ?? null;
      if (first && user && (user.hiddenAt !== null || user.deletedAt !== null)) {
        planned.push({ index: row.index, outcome: deletedUser(line, input.uid) });
        continue;
      }
      const customs = input.custom_fields ?? [];
      const manager = input.manager_id === undefined || input.manager_id === null ? null : findRef(managers, input.manager_id);
      const hrisOwner = typeof input.hris_id === 'string' ? hrisOwners.get(input.hris_id) : undefined;
      const certain =
        first &&
        new Set(customs.map((c) => c.id)).size === customs.length &&
        customs.every((c) => c.value !== null && fields.has(Number(c.id))) &&
        (input.manager_id === undefined || input.manager_id === null || (manager !== null && manager.id !== user?.id)) &&
        (hrisOwner === undefined || hrisOwner === user?.id) &&
        storableLocale(input.locale);
      if (!certain) {
        rest.push(row);
        continue;
      }
      const managerId = input.manager_id === undefined ? (user?.managerId ?? null) : (manager?.id ?? null);
      if (!user) {
        planned.push({ index: row.index, create: { input, managerId }, outcome: { line, uid: input.uid, outcome: 'created', fields: definedKeys(input) } });
        continue;
      }
      const changes = new Set<string>(attributeChanges(user, input));
      if (input.manager_id !== undefined && managerId !== user.managerId) changes.add('manager_id');
      const current = values.get(user.id) ?? new Map<string, string>();
      for (const c of customs) if ((current.get(c.id) ?? null) !== c.value) changes.add(`custom_fields.${c.id}`);
      if (changes.size === 0) planned.push({ index: row.index, outcome: { line, uid: input.uid, outcome: 'unchanged' } });
      else planned.push({ index: row.index, update: { input, user, managerId, changes }, outcome: { line, uid: input.uid, outcome: 'updated', fields: [...changes] } });
    }
    return { planned, rest };
  }

  /**
   * The planned creates and updates, a statement for each kind of write whatever the batch's size: the users
   * inserted, then updated, their custom values set, and their events (as `UsersService.create` and `update`
   * record them). A create that finds its uid or hris_id taken since the plan read them is BatchRaced.
   */
  private async write(scope: TenantScope, rows: PlannedRow[]): Promise<void> {
    const creates = rows.flatMap((r) => (r.create ? [r.create] : []));
    const updates = rows.flatMap((r) => (r.update ? [r.update] : []));
    const setValues: { userId: number; fieldId: number; value: string }[] = [];
    const created = await this.userRows.insertNew(
      scope,
      creates.map(({ input, managerId }) => ({ ...attributesOf(input, null), uid: input.uid, managerId })),
      ['id', 'uid'],
    );
    if (created.length !== creates.length) throw new BatchRaced();
    const createdIds = new Map(created.map((u) => [u.uid as string, u.id as number]));
    for (const { input } of creates) for (const c of input.custom_fields ?? []) setValues.push({ userId: createdIds.get(input.uid) ?? 0, fieldId: Number(c.id), value: c.value ?? '' });

    if (updates.length > 0) {
      const next = updates.map(({ input, user, managerId }) => ({ ...attributesOf(input, user), id: user.id, managerId }));
      // The columns are named as the request's attributes (`first_name`, ...).
      const columns: (readonly [string, keyof User])[] = [...PLAIN_ATTRIBUTES, ['locale', 'locale']];
      const type = (column: string) => (column === 'hire_date' ? 'date' : 'text');
      await this.db.manager.query(
        `UPDATE "${this.db.schema}".users u SET ${columns.map(([c]) => `${c} = v.${c}`).join(', ')}, manager_id = v.manager_id, updated_at = now()
           FROM unnest($2::int[], $3::int[], ${columns.map(([c], i) => `$${i + 4}::${type(c)}[]`).join(', ')}) AS v(id, manager_id, ${columns.map(([c]) => c).join(', ')})
          WHERE u.account_id = $1 AND u.id = v.id`,
        [scope.accountId, next.map((n) => n.id), next.map((n) => n.managerId), ...columns.map(([, property]) => next.map((n) => n[property] ?? null))],
      );
      for (const { input, user, changes } of updates) {
        for (const c of input.custom_fields ?? []) if (changes.has(`custom_fields.${c.id}`)) setValues.push({ userId: user.id, fieldId: Number(c.id), value: c.value ?? '' });
      }
    }
    if (setValues.length > 0) {
      await this.db.manager.query(
        `INSERT INTO "${this.db.schema}".user_custom_field_values (account_id, user_id, custom_field_id, value)
         SELECT $1, u, f, v FROM unnest($2::int[], $3::int[], $4::text[]) AS x(u, f, v)
         ON CONFLICT (account_id, user_id, custom_field_id) DO UPDATE SET value = excluded.value, updated_at = now()`,
        [scope.accountId, setValues.map((v) => v.userId), setValues.map((v) => v.fieldId), setValues.map((v) => v.value)],
      );
    }
    await this.outbox.addAll(scope, USER_CREATED_EVENT, creates.map(({ input }) => ({ data: userEventData({ id: createdIds.get(input.uid), uid: input.uid } as User) })));
    await this.outbox.addAll(scope, USER_UPDATED_EVENT, updates.map(({ user }) => ({ data: userEventData(user) })));
  }

  /** One row as it always was: through the users service, on its own (a dry run's in a transaction it rolls back). */
  private async importRow(scope: TenantScope, { line, input }: ValidRow, dryRun: boolean): Promise<ImportRowOutcome> {
    if (!dryRun) return this.apply(scope, line, input);
    try {
      await this.db.transaction(async () => {
        throw new DryRunRollback(await this.apply(scope, line, input));
      });
    } catch (err) {
      if (err instanceof DryRunRollback) return err.outcome as ImportRowOutcome;
      throw err;
    }
    throw new Error('unreachable');
  }

  private async apply(scope: TenantScope, line: number, input: UserRequest, raced = false): Promise<ImportRowOutcome> {
    const existing = await this.userRows.findOne(scope, { uid: input.uid }, { withDeleted: true });
    try {
      if (!existing) {
        // Undoable: in a dry run's transaction, a lost race must not abort what the retry below runs in.
        await this.db.undoable(() => this.users.create(scope, input));
        return { line, uid: input.uid, outcome: 'created', fields: definedKeys(input) };
      }
      if (existing.hiddenAt !== null || existing.deletedAt !== null) {
        return deletedUser(line, input.uid);
      }
      const changes = await this.changedFields(scope, existing, input);
      if (changes.size === 0) return { line, uid: input.uid, outcome: 'unchanged' };
      const update: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(input)) if (key !== 'uid' && key !== 'custom_fields' && changes.has(key)) update[key] = value;
      const customs = (input.custom_fields ?? []).filter((c) => changes.has(`custom_fields.${c.id}`));
      if (customs.length > 0) update.custom_fields = customs;
      await this.users.update(scope, existing.id, update);
      return { line, uid: input.uid, outcome: 'updated', fields: [...changes] };
    } catch (err) {
      // The uid was free when read and taken at the create (an administrator made that user meanwhile): the
      // row is then an update of that user, as it would have been a moment later. Once: a second loss is real.
      if (!existing && !raced && err instanceof DomainError && err.code === 'USER_ALREADY_EXISTS') return this.apply(scope, line, input, true);
      return { line, uid: input.uid, outcome: 'failed', errors: errorsOf(err) };
    }
  }

  /** The attributes of `input` whose values differ from the user's (custom fields as `custom_fields.<id>`). */
  private async changedFields(scope: TenantScope, user: User, input: UserRequest): Promise<Set<string>> {
    const changed = new Set<string>(attributeChanges(user, input));
    if (input.manager_id !== undefined) {
      const manager = input.manager_id === null ? null : await this.finder.find(scope, input.manager_id);
      // An unknown manager is left for the update to refuse, with the API's error.
      if (input.manager_id !== null && !manager) changed.add('manager_id');
      else if ((manager?.id ?? null) !== user.managerId) changed.add('manager_id');
    }
    if (input.custom_fields && input.custom_fields.length > 0) {
      const current = new Map((await this.values.find(scope, { where: { userId: user.id } })).map((v) => [String(v.customFieldId), v.value]));
      for (const field of input.custom_fields) if ((current.get(field.id) ?? null) !== field.value) changed.add(`custom_fields.${field.id}`);
    }
    return changed;
  }
}
