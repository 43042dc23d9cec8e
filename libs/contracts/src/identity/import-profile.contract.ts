import { Transform, type TransformFnParams } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsObject, IsOptional, IsString, IsUrl, Matches, MaxLength, ValidateIf } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { JsonSchema } from '../routes/route.js';

export const IMPORT_PROFILE_SUBJECTS = {
  show: 'identity.import_profile.show',
  update: 'identity.import_profile.update',
  file: 'identity.import_profile.file',
} as const;

/** Recorded through the outbox when an administrator changes the profile (data: ImportProfileEventData; never the password). */
export const IMPORT_PROFILE_UPDATED_EVENT = 'identity.import_profile.updated';

/** `"0101010"` (Sunday first) becomes 7 booleans; anything else is left for the validators to reject. */
const CsvDays = () =>
  Transform(({ value }: TransformFnParams) => (typeof value === 'string' && /^[01]{7}$/.test(value) ? [...value].map((c) => c === '1') : value));

const DAYS_MESSAGE = 'csv_days must be 7 booleans (Sunday first) or a 7-character string of 0 and 1';

/**
 * The spec lists every field as required, yet PATCH is a partial update: an absent field keeps its value,
 * `null` clears the nullable ones. PUT behaves the same (spec convention 5).
 */
export class UpdateImportProfileBody {
  @IsOptional() @IsString() @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https', 'sftp'], require_protocol: true, require_tld: false, disallow_auth: true }, { message: 'csv_url must be an http, https or sftp URL without credentials (use csv_user and csv_password)' })
  // Whether the host must be public is identity's check (IMPORT_ALLOW_PRIVATE_ADDRESSES, an operator setting).
  csv_url?: string | null;

  @IsOptional() @IsString() @MaxLength(255)
  csv_user?: string | null;

  @IsOptional() @IsString() @MaxLength(1024)
  csv_password?: string | null;

  @ValidateIf((_, value) => value !== undefined) @IsBoolean()
  has_headers?: boolean;

  @ValidateIf((_, value) => value !== undefined) @CsvDays()
  @IsArray({ message: DAYS_MESSAGE }) @ArrayMinSize(7, { message: DAYS_MESSAGE }) @ArrayMaxSize(7, { message: DAYS_MESSAGE }) @IsBoolean({ each: true, message: DAYS_MESSAGE })
  csv_days?: boolean[];

  @IsOptional() @IsString() @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'csv_time must be HH:MM (24-hour clock)' })
  csv_time?: string | null;

  /** Column index as text → field names; checked against the account's fields by the service (400 naming the bad key). */
  @ValidateIf((_, value) => value !== undefined) @IsObject({ message: 'columns must be an object of column index to an array of field names' })
  @JSONSchema({ additionalProperties: { type: 'array', items: { type: 'string' } } })
  columns?: Record<string, unknown>;
}

export interface ImportColumnView {
  /** The custom field's id; null for a built-in user field. */
  custom_field_id: number | null;
  /** A built-in field's key (`uid`, `email`, …) or the custom field's name. */
  name: string;
  position: number;
  primary_field: boolean;
}

export interface ImportProfileView {
  id: number;
  csv_url: string | null;
  csv_user: string | null;
  /** Whether a password is stored; the password itself is never answered. */
  csv_password_set: boolean;
  csv_days: boolean[];
  csv_time: string | null;
  has_headers: boolean;
  import_columns: ImportColumnView[];
}

export interface ImportProfileEventData {
  id: number;
  csv_url: string | null;
  csv_days: boolean[];
  csv_time: string | null;
  has_headers: boolean;
}

export const IMPORT_PROFILE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'csv_url', 'csv_user', 'csv_password_set', 'csv_days', 'csv_time', 'has_headers', 'import_columns'],
  properties: {
    id: { type: 'integer' },
    csv_url: { type: ['string', 'null'] },
    csv_user: { type: ['string', 'null'] },
    csv_password_set: { type: 'boolean', description: 'whether a password is stored; the password is never answered' },
    csv_days: { type: 'array', items: { type: 'boolean' }, minItems: 7, maxItems: 7, description: 'Sunday first' },
    csv_time: { type: ['string', 'null'], description: 'HH:MM, 24-hour clock' },
    has_headers: { type: 'boolean' },
    import_columns: {
      type: 'array',
      items: {
        type: 'object',
        required: ['custom_field_id', 'name', 'position', 'primary_field'],
        properties: {
          custom_field_id: { type: ['integer', 'null'], description: 'null for a built-in user field' },
          name: { type: 'string' },
          position: { type: 'integer' },
          primary_field: { type: 'boolean' },
        },
      },
    },
  },
};
