import { Injectable } from '@nestjs/common';
import { pageWindow, type CustomFieldEventData, type CustomFieldInput, type CustomFieldView, type PageQuery } from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantFindOneOptions, type TenantRepository, type TenantScope, unlessTaken } from '@lms/platform';
import { CustomField } from './custom-field.entity.js';
import { customFieldNameTaken, customFieldNotFound } from './custom-field.errors.js';

export const toCustomFieldView = (field: CustomField, withName = true): CustomFieldView =>
  withName ? { id: String(field.id), name: field.name } : { id: String(field.id) };

const eventData = (field: CustomField): CustomFieldEventData => ({ id: field.id, name: field.name });

@Injectable()
export class CustomFieldsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(CustomField) private readonly fields: TenantRepository<CustomField>,
  ) {}

  list(scope: TenantScope, page: PageQuery): Promise<[CustomField[], number]> {
    const { skip, take } = pageWindow(page);
    return this.fields.findAndCount(scope, { order: { id: 'ASC' }, skip, take });
  }

  async show(scope: TenantScope, id: number, options: TenantFindOneOptions = {}): Promise<CustomField> {
    return (await this.fields.findOne(scope, { id }, options)) ?? Promise.reject(customFieldNotFound(id));
  }

  /** All or nothing: one taken name rejects the whole array. */
  async create(scope: TenantScope, inputs: CustomFieldInput[]): Promise<CustomField[]> {
    const seen = new Map<string, number>();
    inputs.forEach((input, i) => {
      const key = input.name.trim().toLowerCase();
      if (seen.has(key)) throw customFieldNameTaken(input.name, `custom_fields[${i}].name`);
      seen.set(key, i);
    });
    return this.db.transaction(async () => {
      // The names' locks first, in the order of their keys: two creates naming the same fields in other orders
      // would each wait on a name the other inserted first, and deadlock (a 409 for a taken name). Then the
      // fields in the request's order, so their ids and events follow it. A create of one name waits on one key
      // only, which is no cycle: it takes no lock (the common create, and the bench's).
      if (seen.size > 1) {
        await this.db.manager.query(
          'SELECT pg_advisory_xact_lock(hashtext($1 || k)) FROM unnest($2::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n',
          [`identity.custom_fields:${scope.accountId}:`, [...seen.keys()].sort()],
        );
      }
      const created: CustomField[] = [];
      for (const [i, input] of inputs.entries()) {
        const name = input.name.trim();
        const field = await unlessTaken(() => this.fields.insert(scope, { name }), () => customFieldNameTaken(name, `custom_fields[${i}].name`));
        await this.outbox.add(scope, 'identity.custom_field.created', eventData(field));
        created.push(field);
      }
      return created;
    });
  }

  /** `nameField`: where the request named the new name (`custom_field.name`, or `custom_fields[0].name`). */
  async update(scope: TenantScope, id: number, input: CustomFieldInput, nameField = 'custom_field.name'): Promise<CustomField> {
    return this.db.transaction(async () => {
      // Locked: `save` of a row deleted meanwhile would insert it again.
      const row = await this.show(scope, id, { lock: 'update' });
      row.name = input.name.trim();
      const saved = await unlessTaken(() => this.fields.save(scope, row), () => customFieldNameTaken(row.name, nameField));
      await this.outbox.add(scope, 'identity.custom_field.updated', eventData(saved));
      return saved;
    });
  }

  async delete(scope: TenantScope, id: number): Promise<CustomField> {
    return this.db.transaction(async () => {
      const field = await this.show(scope, id, { lock: 'update' });
      const snapshot = Object.assign(new CustomField(), field);
      await this.fields.remove(scope, field);
      await this.outbox.add(scope, 'identity.custom_field.deleted', eventData(snapshot));
      return snapshot;
    });
  }
}
