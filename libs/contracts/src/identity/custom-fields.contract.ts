import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { PageQuery, QueryArray } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';

export const CUSTOM_FIELD_SUBJECTS = {
  list: 'identity.custom_fields.list',
  show: 'identity.custom_fields.show',
  create: 'identity.custom_fields.create',
  update: 'identity.custom_fields.update',
  delete: 'identity.custom_fields.delete',
  listUserFields: 'identity.user_fields.list',
} as const;

/** Attributes a list may add beyond `id` (spec: "only 'name' supported"). */
export const FIELD_INCLUDES = ['name'] as const;

export class FieldIncludesQuery extends PageQuery {
  @IsOptional() @QueryArray() @IsArray() @IsIn(FIELD_INCLUDES, { each: true, message: `includes may only hold: ${FIELD_INCLUDES.join(', ')}` })
  includes?: string[];
}

export class CustomFieldInput {
  // Stored trimmed: a name of spaces alone would be stored as "".
  @IsString() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  name: string;
}

export class CreateCustomFieldsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => CustomFieldInput)
  custom_fields: CustomFieldInput[];
}

/**
 * `custom_field`, the shape the spec's request uses; or `custom_fields`, the parameter its table lists, as a
 * one-element array (docs/compatibility.md). `custom_field` is read when both are sent.
 */
export class UpdateCustomFieldBody {
  @ValidateIf((body: UpdateCustomFieldBody) => body.custom_fields === undefined || body.custom_fields === null || body.custom_field !== undefined)
  @IsDefined({ message: 'custom_field should not be null or undefined' }) @IsObject() @ValidateNested() @Type(() => CustomFieldInput)
  custom_field?: CustomFieldInput;

  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1, { message: 'custom_fields renames one field: give one element' }) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => CustomFieldInput)
  custom_fields?: CustomFieldInput[];
}

/** The field an update names, under either key, and where its name is (for an error about it). */
export const customFieldOf = (body: UpdateCustomFieldBody): { input: CustomFieldInput; nameField: string } =>
  body.custom_field ? { input: body.custom_field, nameField: 'custom_field.name' } : { input: body.custom_fields?.[0] as CustomFieldInput, nameField: 'custom_fields[0].name' };

export interface CustomFieldView {
  id: string;
  name?: string;
}

export interface UserFieldView {
  id: string;
  name?: string;
  type: 'custom_field_value' | 'user_field_value';
}

export const CUSTOM_FIELD_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', description: 'numeric text' }, name: { type: 'string' } },
};

export const USER_FIELD_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'type'],
  properties: {
    id: { type: 'string', description: "numeric text for custom fields, a name such as 'locale' for built-in ones" },
    name: { type: 'string' },
    type: { type: 'string', enum: ['custom_field_value', 'user_field_value'] },
  },
};

export interface CustomFieldEventData {
  id: number;
  name: string;
}
