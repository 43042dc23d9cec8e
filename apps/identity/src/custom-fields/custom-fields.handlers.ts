import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CUSTOM_FIELD_SUBJECTS as S,
  type CreateCustomFieldsBody,
  type FieldIncludesQuery,
  type IdParams,
  type PageQuery,
  type RpcRequest,
  customFieldOf,
  type UpdateCustomFieldBody,
  envelope,
} from '@lms/contracts';
import { Handles, paged, reply } from '@lms/platform';
import { CustomFieldsService, toCustomFieldView } from './custom-fields.service.js';

@Controller()
export class CustomFieldsHandlers {
  constructor(private readonly service: CustomFieldsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, FieldIncludesQuery & PageQuery>) {
    const withName = query.includes?.includes('name') ?? false;
    const [fields, total] = await this.service.list(ctx, query);
    return paged(envelope('custom_fields', fields.map((f) => toCustomFieldView(f, withName))), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('custom_fields', [toCustomFieldView(await this.service.show(ctx, params.id))]);
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateCustomFieldsBody>) {
    const created = await this.service.create(ctx, body.custom_fields);
    return reply(envelope('custom_fields', created.map((f) => toCustomFieldView(f))), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateCustomFieldBody, object, IdParams>) {
    const { input, nameField } = customFieldOf(body);
    return envelope('custom_fields', [toCustomFieldView(await this.service.update(ctx, params.id, input, nameField))]);
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('custom_fields', [toCustomFieldView(await this.service.delete(ctx, params.id))]);
  }
}
