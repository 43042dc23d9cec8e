import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CUSTOM_FIELD_SUBJECTS as S, envelope, type FieldIncludesQuery, pageWindow, type RpcRequest, type UserFieldView } from '@lms/contracts';
import { Handles, InjectTenantRepository, paged, type TenantRepository } from '@lms/platform';
import { CustomField } from '../custom-fields/custom-field.entity.js';

/** Built-in user attributes an import or a report can address by name. */
export const BUILT_IN_USER_FIELDS: { id: string; name: string }[] = [
  { id: 'uid', name: 'Username' },
  { id: 'first_name', name: 'First name' },
  { id: 'last_name', name: 'Last name' },
  { id: 'email', name: 'Email' },
  { id: 'locale', name: 'Locale' },
  { id: 'hire_date', name: 'Hire date' },
  { id: 'job_title', name: 'Job title' },
  { id: 'department', name: 'Department' },
  { id: 'manager_id', name: 'Manager' },
  { id: 'hris_id', name: 'HRIS id' },
];

@Controller()
export class UserFieldsHandlers {
  constructor(@InjectTenantRepository(CustomField) private readonly customFields: TenantRepository<CustomField>) {}

  /** Built-in fields first, then the account's custom fields by id; one page across both. */
  @Handles(S.listUserFields)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, FieldIncludesQuery>) {
    const withName = query.includes?.includes('name') ?? false;
    const { skip, take } = pageWindow(query);
    const builtIns = BUILT_IN_USER_FIELDS.slice(skip, skip + take);
    const customSkip = Math.max(0, skip - BUILT_IN_USER_FIELDS.length);
    const [custom, customTotal] = await this.customFields.findAndCount(ctx, { order: { id: 'ASC' }, skip: customSkip, take: take - builtIns.length });
    const view = (id: string, name: string, type: UserFieldView['type']): UserFieldView => (withName ? { id, name, type } : { id, type });
    const user_fields = [
      ...builtIns.map((f) => view(f.id, f.name, 'user_field_value')),
      ...(take > builtIns.length ? custom.map((f) => view(String(f.id), f.name, 'custom_field_value')) : []),
    ];
    return paged(envelope('user_fields', user_fields), BUILT_IN_USER_FIELDS.length + customTotal);
  }
}
