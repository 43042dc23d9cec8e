import { plainToInstance, Transform, Type, type TransformFnParams } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { PageQuery, QueryBool } from '../common/query.js';
import { ROLES, type Role } from '../context.js';
import type { JsonSchema } from '../routes/route.js';
import { documented, NullAllowed } from '../common/documented.js';
import { inTimestampRange } from '../common/timestamp.js';

export const USER_SUBJECTS = {
  create: 'identity.users.create',
  list: 'identity.users.list',
  show: 'identity.users.show',
  update: 'identity.users.update',
  delete: 'identity.users.delete',
  hide: 'identity.users.hide',
  summary: 'identity.users.summary',
  setRoles: 'identity.users.set_roles',
  /** `GET /api/author/users`: the account's live users as authors see them (to enroll them). */
  authorList: 'identity.users.author_list',
} as const;

/** Events recorded through the outbox (data: UserEventData). */
export const USER_CREATED_EVENT = 'identity.user.created';
export const USER_UPDATED_EVENT = 'identity.user.updated';
/** `DELETE ?async=true`: the identity worker consuming it finishes the deletion. */
export const USER_DELETION_REQUESTED_EVENT = 'identity.user.deletion_requested';
/** The user is soft-deleted: other services withdraw the user's registrations and enrollments. */
export const USER_DELETED_EVENT = 'identity.user.deleted';
export const USER_HIDDEN_EVENT = 'identity.user.hidden';
/** data: UserRolesEventData */
export const USER_ROLES_CHANGED_EVENT = 'identity.user.roles_changed';


/** `uid:<uid>` in a path or a `manager_id`: the user with that uid. */
export const UID_PREFIX = 'uid:';

/** No whitespace, no slash (a uid travels in paths as `uid:<uid>`), no control characters. */
export const UID_PATTERN = /^[^\s/\p{Cc}]{1,255}$/u;

/** A user named by numeric id (number or numeric text) or by `uid:<uid>`. */
export const isUserReference = (value: unknown): boolean =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) ||
  (typeof value === 'string' && (/^[1-9]\d{0,15}$/.test(value) || (value.startsWith(UID_PREFIX) && UID_PATTERN.test(value.slice(UID_PREFIX.length)))));

export const IsUserReference = (options?: ValidationOptions) =>
  documented(
    { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^[1-9][0-9]{0,15}$' }, { type: 'string', pattern: `^${UID_PREFIX}[^\\s/]{1,255}$`, description: 'uid:<uid>' }] },
    ValidateBy({ name: 'isUserReference', validator: { validate: isUserReference, defaultMessage: () => '$property must be a user id or "uid:<uid>"' } }, options),
  );

/** A real calendar date written YYYY-MM-DD (2025-02-30 is refused), in the years 0001–9999 (Postgres has no year 0000). */
export const isPlainDate = (value: unknown): boolean => {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return inTimestampRange(date.getTime()) && date.toISOString().slice(0, 10) === value;
};

export const IsPlainDate = (options?: ValidationOptions) =>
  documented({ type: 'string', format: 'date' }, ValidateBy({ name: 'isPlainDate', validator: { validate: isPlainDate, defaultMessage: () => '$property must be a date written YYYY-MM-DD' } }, options));

/**
 * A BCP 47 language tag whose primary subtag is a 2–3 letter language code (`en`, `en-US`, `pt-BR`,
 * `zh-Hant-TW`); Intl decides the well-formedness of the rest.
 */
export const isLanguageTag = (value: unknown): boolean => {
  if (typeof value !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(value)) return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
};

export const IsLanguageTag = (options?: ValidationOptions) =>
  documented(
    { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' },
    ValidateBy({ name: 'isLanguageTag', validator: { validate: isLanguageTag, defaultMessage: () => '$property must be a language code such as "en" or "en-US"' } }, options),
  );

/** One custom field value of a user: `id` names an existing custom field of the account; `value` null clears it. */
export class CustomFieldValueInput {
  @IsDefined() @IsString() @Matches(/^[1-9]\d{0,9}$/, { message: 'id must be the numeric id of a custom field' })
  id: string;

  @NullAllowed() @IsDefined() @IsString() @MaxLength(1000)
  value: string | null;
}

/**
 * The spec's UserRequest without `uid`, every attribute optional; `null` clears an attribute. `roles`,
 * `id` and `account_id` are not in it, so the whitelist rejects them (no mass assignment).
 */
export class UserAttributes {
  @IsOptional() @IsString() @MaxLength(255)
  first_name?: string | null;

  @IsOptional() @IsString() @MaxLength(255)
  last_name?: string | null;

  @IsOptional() @IsString() @MaxLength(255)
  full_name?: string | null;

  @IsOptional() @IsString() @MaxLength(255)
  sortable_name?: string | null;

  @IsOptional() @IsEmail() @MaxLength(320)
  email?: string | null;

  @IsOptional() @IsLanguageTag()
  locale?: string | null;

  @IsOptional() @IsUserReference()
  manager_id?: string | number | null;

  @IsOptional() @IsPlainDate()
  hire_date?: string | null;

  @IsOptional() @IsString() @MaxLength(255)
  job_title?: string | null;

  @IsOptional() @IsString() @MaxLength(255)
  department?: string | null;

  @IsOptional() @IsString() @MinLength(1) @MaxLength(255)
  hris_id?: string | null;

  // Any host, as a customer's intranet or localhost serves them (no top-level domain needed).
  @IsOptional() @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }) @MaxLength(2048)
  avatar_url?: string | null;

  @IsOptional() @IsArray() @ArrayMaxSize(200) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => CustomFieldValueInput)
  custom_fields?: CustomFieldValueInput[] | null;
}

export class UserRequest extends UserAttributes {
  @IsDefined() @IsString() @Matches(UID_PATTERN, { message: 'uid must be 1 to 255 characters without spaces or "/"' })
  uid: string;
}

/** An update names only what changes; `uid` may change (to a free one) but not be cleared. */
export class UserUpdateRequest extends UserAttributes {
  @ValidateIf((o: UserUpdateRequest) => o.uid !== undefined) @IsString() @Matches(UID_PATTERN, { message: 'uid must be 1 to 255 characters without spaces or "/"' })
  uid?: string;
}

/**
 * Spec: "only the first element is processed, extra elements are ignored". They are dropped before
 * validation too: a body is judged by what it does, and the extras do nothing.
 */
const firstUserOnly = ({ value }: TransformFnParams): unknown =>
  Array.isArray(value) && value.length > 0 ? [value[0] instanceof UserRequest ? value[0] : plainToInstance(UserRequest, value[0] as object)] : value;

export class CreateUsersBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @Transform(firstUserOnly) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => UserRequest)
  users: UserRequest[];
}

export class UpdateUserBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => UserUpdateRequest)
  user: UserUpdateRequest;
}

/** `:id` of the user routes: a numeric id or `uid:<uid>`. */
export class UserRefParams {
  @IsDefined() @IsUserReference()
  id: string;
}

export class ListUsersQuery extends PageQuery {
  /** Case-insensitive substring of the first, last or full name, uid or e-mail. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255)
  search?: string;

  @IsOptional() @QueryBool() @IsBoolean()
  with_deleted?: boolean;

  @IsOptional() @QueryBool() @IsBoolean()
  only_deleted?: boolean;
}

/** The admin list's paging and search, without its deleted-user filters (authors see live users only). */
export class AuthorListUsersQuery extends PageQuery {
  /** Case-insensitive substring of the first, last or full name, uid or e-mail. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255)
  search?: string;
}

export class DeleteUserQuery {
  @IsOptional() @QueryBool() @IsBoolean()
  async?: boolean;
}

export class UserSummaryQuery {
  @IsOptional() @IsPlainDate()
  start_date?: string;

  @IsOptional() @IsPlainDate()
  end_date?: string;
}

export interface UserLink {
  rel: string;
  href: string;
}

/** The spec's User response. */
export interface UserView {
  id: number;
  uid: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  locale: string | null;
  roles: string[];
  name: string;
  avatar_url: string | null;
  deleted_at: string | null;
  hire_date: string | null;
  links: UserLink[];
  meta: { can_masquerade: boolean };
}

/** A user as authors see one: who they are, nothing an administrator alone may read. */
export type AuthorUserView = Pick<UserView, 'id' | 'uid' | 'name' | 'email' | 'avatar_url' | 'roles'>;

export interface UserEnvelope {
  meta: { can_masquerade: boolean };
  linked: Record<string, unknown[]>;
  users: UserView[];
}

export interface UserSummaryView {
  completed_courses: number;
  completed_programs: number;
  completed_live_courses: number;
  total_on_time: number;
  total_overdue: number;
  all: number;
}

/** Data of every `identity.user.*` event. */
export class UserEventData {
  @IsInt() @Min(1)
  user_id: number;

  @IsString() @Matches(UID_PATTERN)
  uid: string;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const USER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'uid', 'first_name', 'last_name', 'email', 'locale', 'roles', 'name', 'avatar_url', 'deleted_at', 'hire_date', 'links', 'meta'],
  properties: {
    id: { type: 'integer' },
    uid: { type: 'string' },
    first_name: nullable('string'),
    last_name: nullable('string'),
    email: nullable('string'),
    locale: nullable('string', { description: 'BCP 47 language tag' }),
    roles: { type: 'array', items: { type: 'string', enum: ['admin', 'author', 'learner', 'support'] } },
    name: { type: 'string', description: 'full_name, else first and last name, else the uid' },
    avatar_url: nullable('string'),
    deleted_at: nullable('string', { format: 'date-time' }),
    hire_date: nullable('string', { format: 'date' }),
    links: { type: 'array', items: { type: 'object', required: ['rel', 'href'], properties: { rel: { type: 'string' }, href: { type: 'string' } } } },
    meta: { type: 'object', required: ['can_masquerade'], properties: { can_masquerade: { type: 'boolean' } } },
  },
};

export const AUTHOR_USER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'uid', 'name', 'email', 'avatar_url', 'roles'],
  properties: Object.fromEntries(['id', 'uid', 'name', 'email', 'avatar_url', 'roles'].map((key) => [key, (USER_SCHEMA.properties as Record<string, JsonSchema>)[key]])),
};

export const USER_SUMMARY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['completed_courses', 'completed_programs', 'completed_live_courses', 'total_on_time', 'total_overdue', 'all'],
  properties: Object.fromEntries(
    ['completed_courses', 'completed_programs', 'completed_live_courses', 'total_on_time', 'total_overdue', 'all'].map((k) => [k, { type: 'integer', minimum: 0 }]),
  ),
};

/** `PUT /api/admin/users/:id/roles`: the user's whole set of roles (roles are never taken from a create body). */
export class SetUserRolesBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(ROLES.length) @ArrayUnique() @IsIn(ROLES, { each: true, message: `each role must be one of: ${ROLES.join(', ')}` })
  roles: Role[];
}

export interface UserRolesEventData extends UserEventData {
  roles: Role[];
}
