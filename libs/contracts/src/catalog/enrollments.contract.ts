import { Type } from 'class-transformer';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import { NullAllowed } from '../common/documented.js';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { IsText } from './text.js';

export const ENROLLMENT_SUBJECTS = {
  list: 'catalog.enrollments.list',
  create: 'catalog.enrollments.create',
  update: 'catalog.enrollments.update',
  delete: 'catalog.enrollments.delete',
} as const;

/** data: EnrollmentEventData. `completed` is catalog.enrollment.completed (CatalogEnrollmentCompletedData). */
export const ENROLLMENT_CREATED_EVENT = 'catalog.enrollment.created';
export const ENROLLMENT_UPDATED_EVENT = 'catalog.enrollment.updated';
/** A removal (DELETE), a withdrawal (the user was deleted) or a new attempt replacing a completed one. */
export const ENROLLMENT_REMOVED_EVENT = 'catalog.enrollment.removed';

/** What an author may set (`complete` through `completed_at` or `state`). */
export const ENROLLMENT_STATES = ['assigned', 'active', 'complete'] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];
/** The list's `state` filter: the stored states, `overdue` (derived from end_at) and `removed` (history). */
export const ENROLLMENT_STATE_FILTERS = [...ENROLLMENT_STATES, 'overdue', 'removed'] as const;
export type EnrollmentStateFilter = (typeof ENROLLMENT_STATE_FILTERS)[number];

export const ENROLLMENT_REMOVAL_REASONS = ['removed', 'user_deleted', 're_enrolled', 'left_group', 'task_deleted'] as const;
export type EnrollmentRemovalReason = (typeof ENROLLMENT_REMOVAL_REASONS)[number];

/** Exactly one of user_id and group_id. */
const OneLearnerSource = () =>
  ValidateBy({
    name: 'oneLearnerSource',
    validator: {
      validate: (_: unknown, args) => {
        const o = args?.object as Record<string, unknown>;
        return (o.user_id !== undefined) !== (o.group_id !== undefined);
      },
      defaultMessage: () => 'give exactly one of user_id and group_id',
    },
  });

/** An RFC 3339 date-time, null (no date), or left out. */
const DateOrNull = () => (target: object, key: string | symbol) => {
  IsOptional()(target, key);
  NullAllowed()(target, key);
  IsTimestamp({ message: `${String(key)} must be an RFC 3339 date-time` })(target, key);
};

/** One entry of `POST .../enrollments`: a user, or a group (its learners, now and later). */
@JSONSchema({ oneOf: [{ required: ['user_id'] }, { required: ['group_id'] }] })
export class EnrollmentEntry {
  @ValidateIf((o: EnrollmentEntry) => o.user_id !== undefined || o.group_id === undefined)
  @OneLearnerSource() @IsInt() @Min(1) @Max(MAX_ID)
  user_id?: number;

  @IsOptional() @IsInt() @Min(1) @Max(MAX_ID)
  group_id?: number;

  /** Default true. */
  @IsOptional() @IsBoolean()
  required?: boolean;

  /** Due moment; absent: from the course's default_due_on_date or default_days_until_due; null: no due date. */
  @DateOrNull()
  end_at?: string | null;
}

export class CreateEnrollmentsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => EnrollmentEntry)
  enrollments: EnrollmentEntry[];
}

/** What `PATCH`/`PUT .../enrollments/:id` may change; absent fields stay, null clears the dates. */
export class EnrollmentChanges {
  @DateOrNull()
  end_at?: string | null;

  @IsOptional() @IsIn(ENROLLMENT_STATES, { message: `state must be one of: ${ENROLLMENT_STATES.join(', ')}` })
  state?: EnrollmentState;

  @DateOrNull()
  expires_at?: string | null;

  @IsOptional() @NullAllowed() @IsInt() @Min(0) @Max(100)
  score?: number | null;

  /** Completes the enrollment at that moment (null is refused: a completion is undone by a new attempt). */
  @ValidateIf((_, value) => value !== undefined) @IsTimestamp({ message: 'completed_at must be an RFC 3339 date-time' })
  completed_at?: string;
}

/** `{ "enrollments": [{ … }] }`: an array of exactly one, as the original service's clients send it. */
export class UpdateEnrollmentBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1, { message: 'enrollments must hold exactly one change' })
  @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => EnrollmentChanges)
  enrollments: EnrollmentChanges[];
}

export class ListEnrollmentsQuery extends PageQuery {
  @IsOptional() @IsIn(ENROLLMENT_STATE_FILTERS, { message: `state must be one of: ${ENROLLMENT_STATE_FILTERS.join(', ')}` })
  state?: EnrollmentStateFilter;

  /** Case-insensitive substring of the learner's name, username or e-mail. */
  @IsOptional() @IsText(255)
  search?: string;
}

/** `:course_template_id` of `.../course_templates/:course_template_id/enrollments`. */
export class CourseEnrollmentsParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  course_template_id: number;
}

export interface EnrollmentView {
  id: number;
  state: EnrollmentState;
  overdue: boolean;
  required: boolean;
  end_at: string | null;
  expires_at: string | null;
  score: number | null;
  completed_at: string | null;
  started_at: string | null;
  progress: number;
  course_template_id: number;
  group_id: number | null;
  program_id: number | null;
  removed_at?: string | null;
  removal_reason?: EnrollmentRemovalReason | null;
  created_at: string;
  updated_at: string;
  links: { learner: { id: number } };
}

export interface EnrollmentLearnerView {
  id: number;
  uid: string;
  name: string;
  email: string | null;
  avatar_url: string | null;
  deleted_at: string | null;
}

/** An entry of a create request that enrolled nobody new: the user has a live enrollment in the course. */
export interface SkippedEnrollmentView {
  user_id: number;
  reason: 'already_enrolled';
  enrollment_id: number;
}

export interface EnrollmentEventData {
  id: number;
  course_template_id: number;
  user_id: number;
  state: EnrollmentState;
  required: boolean;
  due_at: string | null;
  group_id: number | null;
  program_id: number | null;
  removal_reason?: EnrollmentRemovalReason;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const dateTime = { type: 'string', format: 'date-time' } as const;

export const ENROLLMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'state', 'overdue', 'required', 'end_at', 'expires_at', 'score', 'completed_at', 'progress', 'created_at', 'updated_at', 'links'],
  properties: {
    id: { type: 'integer' },
    state: { type: 'string', enum: [...ENROLLMENT_STATES] },
    overdue: { type: 'boolean', description: 'not complete and past end_at' },
    required: { type: 'boolean' },
    end_at: nullable('string', { format: 'date-time', description: 'due moment' }),
    expires_at: nullable('string', { format: 'date-time' }),
    score: nullable('integer'),
    completed_at: nullable('string', { format: 'date-time' }),
    started_at: nullable('string', { format: 'date-time' }),
    progress: { type: 'number', minimum: 0, maximum: 1 },
    course_template_id: { type: 'integer' },
    group_id: nullable('integer', { description: 'the group whose enrollment brought the learner in' }),
    program_id: nullable('integer', { description: 'the program whose enrollment brought the learner in' }),
    removed_at: nullable('string', { format: 'date-time', description: 'only with state=removed' }),
    removal_reason: nullable('string', { enum: [...ENROLLMENT_REMOVAL_REASONS, null], description: 'only with state=removed' }),
    created_at: dateTime,
    updated_at: dateTime,
    links: { type: 'object', required: ['learner'], properties: { learner: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } } },
  },
};

/** SkippedEnrollmentView: a user the request enrolled nowhere new (`skipped`). */
export const SKIPPED_ENROLLMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['user_id', 'reason', 'enrollment_id'],
  properties: {
    user_id: { type: 'integer' },
    reason: { type: 'string', enum: ['already_enrolled'] },
    enrollment_id: { type: 'integer', description: 'the live enrollment the user already has' },
  },
};

export const ENROLLMENT_LEARNER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'uid', 'name', 'email', 'avatar_url', 'deleted_at'],
  properties: {
    id: { type: 'integer' }, uid: { type: 'string' }, name: { type: 'string' }, email: nullable('string'), avatar_url: nullable('string'),
    deleted_at: nullable('string', { format: 'date-time' }),
  },
};
