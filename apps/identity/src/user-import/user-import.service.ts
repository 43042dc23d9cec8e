import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import {
  type FieldError,
  type ImportRowInput,
  type ImportRowOutcome,
  type ImportRowsReply,
  type RequestContext,
  UserRequest,
  validateInput,
} from '@lms/contracts';
import { Database, DomainError, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { UserCustomFieldValue } from '../users/user-custom-field-value.entity.js';
import { User } from '../users/user.entity.js';
import { UserFinder } from '../users/user-finder.js';
import { PLAIN_ATTRIBUTES, UsersService } from '../users/users.service.js';

/** Thrown to roll a dry run's transaction back once its outcome is known. */
class DryRunRollback extends Error {
  constructor(readonly outcome: ImportRowOutcome) {
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

/**
 * Applies mapped CSV rows (the import worker's batches) through the users service, so an imported user
 * meets exactly the rules of `POST /api/admin/users` and `PATCH /api/admin/users/:id`: the same DTO
 * validation, uniqueness, manager and custom field checks, events. A row's uid finds its user; a row
 * that changes nothing is `unchanged`; an import never deletes a user. A dry run does each row in a
 * transaction it rolls back, so it answers what would happen and changes nothing.
 */
@Injectable()
export class UserImportService {
  constructor(
    private readonly db: Database,
    private readonly users: UsersService,
    private readonly finder: UserFinder,
    @InjectTenantRepository(User) private readonly userRows: TenantRepository<User>,
    @InjectTenantRepository(UserCustomFieldValue) private readonly values: TenantRepository<UserCustomFieldValue>,
  ) {}

  async importRows(ctx: RequestContext, rows: ImportRowInput[], dryRun: boolean): Promise<ImportRowsReply> {
    const outcomes: ImportRowOutcome[] = [];
    for (const row of rows) outcomes.push(await this.importRow(ctx, row, dryRun));
    const account_users = await this.userRows.count(ctx, { hiddenAt: IsNull() });
    return { outcomes, account_users };
  }

  private async importRow(scope: TenantScope, row: ImportRowInput, dryRun: boolean): Promise<ImportRowOutcome> {
    const checked = await validateInput<UserRequest>(UserRequest, row.user);
    const uid = typeof row.user.uid === 'string' ? row.user.uid : null;
    if (!checked.ok) return { line: row.line, uid, outcome: 'failed', errors: checked.errors.map((e) => ({ field: e.field || null, message: e.message })) };
    const input = checked.value;
    if (!dryRun) return this.apply(scope, row.line, input);
    try {
      await this.db.transaction(async () => {
        throw new DryRunRollback(await this.apply(scope, row.line, input));
      });
    } catch (err) {
      if (err instanceof DryRunRollback) return err.outcome;
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
        return { line, uid: input.uid, outcome: 'created', fields: Object.keys(input).filter((k) => (input as unknown as Record<string, unknown>)[k] !== undefined) };
      }
      if (existing.hiddenAt !== null || existing.deletedAt !== null) {
        return { line, uid: input.uid, outcome: 'failed', errors: [{ field: 'uid', message: `user ${input.uid} is deleted; an import does not restore users` }] };
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
    const changed = new Set<string>();
    for (const [from, to] of PLAIN_ATTRIBUTES) {
      const value = input[from];
      if (value !== undefined && value !== user[to]) changed.add(from);
    }
    if (input.locale !== undefined) {
      const canonical = input.locale === null ? null : Intl.getCanonicalLocales(input.locale)[0];
      if (canonical !== user.locale) changed.add('locale');
    }
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
