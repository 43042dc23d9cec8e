import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { documented } from '../common/documented.js';

export const GROUP_SUBJECTS = {
  list: 'identity.groups.list',
  show: 'identity.groups.show',
  create: 'identity.groups.create',
  update: 'identity.groups.update',
  delete: 'identity.groups.delete',
  addLearners: 'identity.group_learners.add',
  listLearners: 'identity.group_learners.list',
  removeLearner: 'identity.group_learners.remove',
} as const;

/** Events recorded through the outbox (data: GroupEventData / GroupMembershipEventData). */
export const GROUP_CREATED_EVENT = 'identity.group.created';
export const GROUP_UPDATED_EVENT = 'identity.group.updated';
export const GROUP_DELETED_EVENT = 'identity.group.deleted';
export const GROUP_MEMBERSHIP_ADDED_EVENT = 'identity.group_membership.added';
export const GROUP_MEMBERSHIP_REMOVED_EVENT = 'identity.group_membership.removed';

export const GROUP_TYPES = ['group', 'domain'] as const;
export type GroupType = (typeof GROUP_TYPES)[number];

export const GROUP_LEARNER_SORTS = ['name', '-name'] as const;
export type GroupLearnerSort = (typeof GROUP_LEARNER_SORTS)[number];

/** The spec types `parent_id` as a String ('' when none); numbers and null are accepted too. */
const isParentReference = (value: unknown): boolean =>
  value === null ||
  value === '' ||
  (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ID) ||
  (typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value) && Number(value) <= MAX_ID);

const IsParentReference = (options?: ValidationOptions) =>
  documented(
    { oneOf: [{ type: 'integer', minimum: 1, maximum: MAX_ID }, { type: 'string', pattern: '^([1-9][0-9]{0,9})?$', description: "a group id, or '' for none" }, { type: 'null' }] },
    ValidateBy({ name: 'isParentReference', validator: { validate: isParentReference, defaultMessage: () => "$property must be a group id, or '' / null for none" } }, options),
  );

/** `''`, null or undefined mean "no parent"; anything else is a group id. */
export const parentIdOf = (value: string | number | null | undefined): number | null =>
  value === undefined || value === null || value === '' ? null : Number(value);

export class GroupInput {
  @IsString() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  name: string;

  @IsOptional() @IsIn(GROUP_TYPES)
  type?: GroupType;

  @IsOptional() @IsParentReference()
  parent_id?: string | number | null;
}

export class CreateGroupsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => GroupInput)
  groups: GroupInput[];
}

/** Every attribute optional: the ones given change, the others stay (PATCH and PUT alike, spec convention 5). */
export class GroupChanges {
  // Absent means "unchanged"; null is not a name, so it is validated (and refused) rather than skipped.
  @ValidateIf((_, value) => value !== undefined) @IsString() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  name?: string;

  @ValidateIf((_, value) => value !== undefined) @IsIn(GROUP_TYPES)
  type?: GroupType;

  @IsOptional() @IsParentReference()
  parent_id?: string | number | null;
}

export class UpdateGroupBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => GroupChanges)
  group: GroupChanges;
}

export class ListGroupsQuery extends PageQuery {
  /** Case-insensitive substring of the name. */
  @IsOptional() @IsString() @MaxLength(255)
  search?: string;

  @IsOptional() @IsIn(GROUP_TYPES)
  type?: GroupType;
}

/** Ids beyond the integer columns' range are a 400, like any invalid id (as IdParams). */
export class GroupParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  group_id: number;
}

export class GroupLearnerParams extends GroupParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

/** MembershipRequest (spec). */
export class MembershipInput {
  @IsDefined() @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;
}

export class AddGroupLearnersBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => MembershipInput)
  users: MembershipInput[];
}

export class ListGroupLearnersQuery extends PageQuery {
  /** Case-insensitive substring of first name, last name, full name, username (uid) or e-mail. */
  @IsOptional() @IsString() @MaxLength(255)
  search?: string;

  @IsOptional() @IsIn(GROUP_LEARNER_SORTS, { message: "sort must be 'name' or '-name'" })
  sort?: GroupLearnerSort;
}

export interface GroupView {
  id: string;
  parent_id: string;
  name: string;
  type: GroupType;
  users_count: number;
  links: { learners: string };
}

export interface GroupLearnerView {
  id: string;
  group: string;
  avatar: string | null;
  completed_courses_count: number;
  email: string | null;
  name: string;
  next_due_date: string | null;
}

export const GROUP_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'parent_id', 'name', 'type', 'users_count', 'links'],
  properties: {
    id: { type: 'string', description: 'numeric text' },
    parent_id: { type: 'string', description: "the parent group's id; '' when none" },
    name: { type: 'string' },
    type: { type: 'string', enum: [...GROUP_TYPES] },
    users_count: { type: 'integer', description: 'direct members that are not deleted' },
    links: { type: 'object', properties: { learners: { type: 'string' } } },
  },
};

export const GROUP_LEARNER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'group', 'avatar', 'completed_courses_count', 'email', 'name', 'next_due_date'],
  properties: {
    id: { type: 'string', description: 'the user id' },
    group: { type: 'string', description: 'the group id' },
    avatar: { type: ['string', 'null'] },
    completed_courses_count: { type: 'integer' },
    email: { type: ['string', 'null'] },
    name: { type: 'string', description: 'first and last name, or the username when both are empty' },
    next_due_date: { type: ['string', 'null'], format: 'date-time' },
  },
};

export interface GroupEventData {
  id: number;
  parent_id: number | null;
  name: string;
  type: GroupType;
}

export interface GroupMembershipEventData {
  group_id: number;
  user_id: number;
}
