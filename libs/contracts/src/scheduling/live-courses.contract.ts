import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsObject, IsOptional, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import { IsText } from '../catalog/text.js';
import { MAX_ID, PageQuery, QueryArray, QueryBool, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';

export const LIVE_COURSE_SUBJECTS = {
  list: 'scheduling.live_courses.list',
  show: 'scheduling.live_courses.show',
  create: 'scheduling.live_courses.create',
  update: 'scheduling.live_courses.update',
  delete: 'scheduling.live_courses.delete',
} as const;

export const LIVE_COURSE_LEARNER_SUBJECTS = {
  list: 'scheduling.live_course_learners.list',
  enroll: 'scheduling.live_course_learners.enroll',
  remove: 'scheduling.live_course_learners.remove',
} as const;

/** Events recorded through the outbox (data: LiveCourseEventData). */
export const LIVE_COURSE_CREATED_EVENT = 'scheduling.live_course.created';
export const LIVE_COURSE_UPDATED_EVENT = 'scheduling.live_course.updated';
export const LIVE_COURSE_DELETED_EVENT = 'scheduling.live_course.deleted';
/** data: LiveCourseEnrollmentEventData */
export const LIVE_COURSE_ENROLLMENT_CREATED_EVENT = 'scheduling.live_course_enrollment.created';
export const LIVE_COURSE_ENROLLMENT_REMOVED_EVENT = 'scheduling.live_course_enrollment.removed';

export const LIVE_COURSE_INCLUDES = ['expiration', 'enrollment_profiles', 'enrollments'] as const;
export type LiveCourseInclude = (typeof LIVE_COURSE_INCLUDES)[number];

const apply = (decorators: PropertyDecorator[]): PropertyDecorator => (target, key) => decorators.forEach((d) => d(target, key));
/** Absent means unchanged; null is refused where the column cannot be empty. */
const Present = () => ValidateIf((_, value) => value !== undefined);
export const DateFilter = () => apply([IsOptional(), IsTimestamp({ message: '$property must be an RFC 3339 date-time' })]);

/** The spec's LiveCourseRequest (every field optional) plus the expiration and enrollment-profile settings it shows. */
export class LiveCourseRequest {
  @Present() @IsText(255) @Matches(/\S/, { message: 'title must not be blank' })
  title?: string;

  @IsOptional() @IsText(20_000)
  description?: string | null;

  @IsOptional() @IsText(255)
  external_course_id?: string | null;

  @Present() @IsBoolean()
  has_certificate?: boolean;

  @Present() @IsBoolean()
  expires?: boolean;

  @IsOptional() @IsInt() @Min(1) @Max(36_500)
  default_days_until_expiration?: number | null;

  @Present() @IsBoolean()
  auto_re_enroll?: boolean;

  @IsOptional() @IsInt() @Min(1) @Max(36_500)
  re_enrollment_period?: number | null;

  @Present() @IsBoolean()
  open_enrollment?: boolean;
}

export class CreateLiveCoursesBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => LiveCourseRequest)
  live_courses: LiveCourseRequest[];
}

export class UpdateLiveCourseBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => LiveCourseRequest)
  live_course: LiveCourseRequest;
}

/** Date filters and the deleted flags, as every scheduling list takes them. */
export class DatedListQuery extends PageQuery {
  @DateFilter() updated_after?: string;
  @DateFilter() created_after?: string;
  @DateFilter() deleted_after?: string;
  @DateFilter() updated_before?: string;
  @DateFilter() created_before?: string;
  @DateFilter() deleted_before?: string;

  @IsOptional() @QueryBool() @IsBoolean()
  only_deleted?: boolean;

  @IsOptional() @QueryBool() @IsBoolean()
  with_deleted?: boolean;
}

export class ListLiveCoursesQuery extends DatedListQuery {
  @IsOptional() @QueryArray() @IsArray() @ArrayMaxSize(LIVE_COURSE_INCLUDES.length * 2) @IsIn(LIVE_COURSE_INCLUDES, { each: true, message: `each include must be one of: ${LIVE_COURSE_INCLUDES.join(', ')}` })
  includes?: LiveCourseInclude[];

  /** Case-insensitive substring of the title. */
  @IsOptional() @IsText(255)
  search?: string;
}

export class ShowLiveCourseQuery {
  @IsOptional() @QueryArray() @IsArray() @ArrayMaxSize(LIVE_COURSE_INCLUDES.length * 2) @IsIn(LIVE_COURSE_INCLUDES, { each: true, message: `each include must be one of: ${LIVE_COURSE_INCLUDES.join(', ')}` })
  includes?: LiveCourseInclude[];
}

/** `:live_course_id` of the nested routes. */
export class LiveCourseParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  live_course_id: number;
}

export class LiveCourseLearnerParams extends LiveCourseParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  live_course_enrollment_id: number;
}

export class LiveCourseLearnerInput {
  @IsDefined() @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;
}

/** `POST .../learners`: `{ "learners": [{ "user_id": 7 }] }`, all or nothing. */
export class EnrollLiveCourseLearnersBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => LiveCourseLearnerInput)
  learners: LiveCourseLearnerInput[];
}

export class ListLiveCourseLearnersQuery extends PageQuery {}

export interface LiveCourseEnrollmentView {
  id: string;
  live_course_id: string;
  user_id: string;
  name: string;
  email: string | null;
  avatar_url: string | null;
  state: 'active' | 'completed';
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface LiveCourseView {
  id: string;
  title: string;
  author_id: string;
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
  description: string | null;
  sessions_count: number;
  enrollments_count: number;
  is_published: boolean;
  external_course_id: string | null;
  has_certificate: boolean;
  expires?: boolean;
  default_days_until_expiration?: number | null;
  auto_re_enroll?: boolean;
  re_enrollment_period?: number | null;
  open_enrollment?: boolean;
  uuid?: string;
  enroll_url?: string;
  enrollments?: LiveCourseEnrollmentView[];
}

export interface LiveCourseEventData {
  id: number;
  title: string;
}

export interface LiveCourseEnrollmentEventData {
  live_course_id: number;
  enrollment_id: number;
  user_id: number;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const LIVE_COURSE_ENROLLMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'live_course_id', 'user_id', 'name', 'email', 'avatar_url', 'state', 'completed_at', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    live_course_id: { type: 'string' },
    user_id: { type: 'string' },
    name: { type: 'string' },
    email: nullable('string'),
    avatar_url: nullable('string'),
    state: { type: 'string', enum: ['active', 'completed'] },
    completed_at: nullable('string', { format: 'date-time' }),
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

export const LIVE_COURSE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'author_id', 'created_at', 'updated_at', 'description', 'sessions_count', 'enrollments_count', 'is_published', 'external_course_id', 'has_certificate'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    author_id: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    deleted_at: { ...nullable('string', { format: 'date-time' }), description: 'only when deleted records were asked for' },
    description: nullable('string'),
    sessions_count: { type: 'integer', description: 'top-level sessions (parts not counted), deleted ones not counted' },
    enrollments_count: { type: 'integer' },
    is_published: { type: 'boolean', description: 'true once any of its sessions is published' },
    external_course_id: nullable('string'),
    has_certificate: { type: 'boolean' },
    expires: { type: 'boolean', description: 'show and update; list with includes[]=expiration' },
    default_days_until_expiration: nullable('integer'),
    auto_re_enroll: { type: 'boolean' },
    re_enrollment_period: nullable('integer'),
    open_enrollment: { type: 'boolean', description: 'show and update; list with includes[]=enrollment_profiles' },
    uuid: { type: 'string' },
    enroll_url: { type: 'string' },
    enrollments: { type: 'array', items: LIVE_COURSE_ENROLLMENT_SCHEMA, description: 'with includes[]=enrollments' },
  },
};
