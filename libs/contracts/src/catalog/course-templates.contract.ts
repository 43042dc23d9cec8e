import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
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
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import { MAX_ID, PageQuery, QueryArray, QueryBool, QueryInt } from '../common/query.js';
import { IsPlainDate } from '../identity/users.contract.js';
import type { JsonSchema } from '../routes/route.js';
import { LAUNCH_TYPES, REGISTRATION_INSTANCING_OPTIONS, SCORE_ROLLUP_MODES } from './scorm.contract.js';
import { IsText, NoNul } from './text.js';

export const COURSE_TEMPLATE_SUBJECTS = {
  list: 'catalog.course_templates.list',
  titles: 'catalog.course_templates.titles',
  show: 'catalog.course_templates.show',
  create: 'catalog.course_templates.create',
  update: 'catalog.course_templates.update',
  delete: 'catalog.course_templates.delete',
  restore: 'catalog.course_templates.restore',
  sync: 'catalog.course_templates.sync',
  publish: 'catalog.course_templates.publish',
} as const;

/** Events recorded through the outbox (data: CourseTemplateEventData, or CourseTemplatePublishedData). */
export const COURSE_TEMPLATE_CREATED_EVENT = 'catalog.course_template.created';
export const COURSE_TEMPLATE_UPDATED_EVENT = 'catalog.course_template.updated';
export const COURSE_TEMPLATE_DELETED_EVENT = 'catalog.course_template.deleted';
export const COURSE_TEMPLATE_RESTORED_EVENT = 'catalog.course_template.restored';
export const COURSE_TEMPLATE_PUBLISHED_EVENT = 'catalog.course_template.published';
/** `POST .../sync` of a SCORM course: whoever talks to the SCORM upstream re-reads its enrollments. */
export const COURSE_TEMPLATE_SYNC_REQUESTED_EVENT = 'catalog.course_template.sync_requested';

export const COURSE_TYPES = ['native', 'scorm', 'third_party_a', 'third_party_b'] as const;
export type CourseType = (typeof COURSE_TYPES)[number];

export const DUE_DATE_TYPES = ['relative', 'absolute'] as const;

export const COURSE_TEMPLATE_SORTS = ['newest', 'title', 'updated', 'archived'] as const;
export type CourseTemplateSort = (typeof COURSE_TEMPLATE_SORTS)[number];
export const COURSE_TEMPLATE_TITLE_SORTS = ['newest', 'title', 'updated'] as const;

export const COURSE_TEMPLATE_FILTERS = ['my_courses', 'unpublished', 'has_certificate', 'no_enrollments', 'native', 'scorm', 'third_party_a', 'third_party_b'] as const;
export type CourseTemplateFilter = (typeof COURSE_TEMPLATE_FILTERS)[number];

export const COURSE_TEMPLATE_LIST_INCLUDES = ['counts', 'expiration', 'enrollment_profiles', 'programs'] as const;
export type CourseTemplateListInclude = (typeof COURSE_TEMPLATE_LIST_INCLUDES)[number];

export const COURSE_TEMPLATE_SHOW_INCLUDES = ['has_shared_enrollments', 'next_section_due', 'programs', 'with_content'] as const;
export type CourseTemplateShowInclude = (typeof COURSE_TEMPLATE_SHOW_INCLUDES)[number];

export const NOTIFY_FILTERS = ['all', 'finished', 'in_progress'] as const;
export type NotifyFilter = (typeof NOTIFY_FILTERS)[number];

/** The attributes a course (or its sub-account) can lock on enrollment profiles: the request's own settings. */
export const LOCKABLE_COURSE_ATTRIBUTES = [
  'title', 'description', 'default_days_until_due', 'default_due_on_date', 'due_date_type', 'external_course_id', 'has_certificate',
  'passing_threshold', 'max_quiz_attempts', 'continuing_education_credits', 'open_book', 'tags', 'matching_tags',
  'maintain_branding_in_sub_account',
] as const;

export const MAX_TAGS = 100;
export const MAX_TITLE = 255;
export const MAX_DESCRIPTION = 20_000;

/** Absent means "unchanged" on update; required fields are required on create. */
const Required = (required: boolean) => (required ? IsDefined() : ValidateIf((_, value) => value !== undefined));

const Tags = () => [IsArray(), ArrayMaxSize(MAX_TAGS), IsString({ each: true }), MaxLength(100, { each: true }), NoNul()];
const apply = (decorators: PropertyDecorator[]): PropertyDecorator => (target, key) => decorators.forEach((d) => d(target, key));

/** The SCORM player settings a SCORM course takes (docs/scorm.md): each optional, none null. */
export class ScormSettingsRequest {
  @Required(false) @IsIn(REGISTRATION_INSTANCING_OPTIONS, { message: `registration_instancing_option must be one of: ${REGISTRATION_INSTANCING_OPTIONS.join(', ')}` })
  registration_instancing_option?: string;

  @Required(false) @IsIn(LAUNCH_TYPES, { message: `player_launch_type must be one of: ${LAUNCH_TYPES.join(', ')}` })
  player_launch_type?: string;

  @Required(false) @IsIn(LAUNCH_TYPES, { message: `sco_launch_type must be one of: ${LAUNCH_TYPES.join(', ')}` })
  sco_launch_type?: string;

  @Required(false) @IsIn(SCORE_ROLLUP_MODES, { message: `score_rollup_mode must be one of: ${SCORE_ROLLUP_MODES.join(', ')}` })
  score_rollup_mode?: string;
}

/**
 * The spec's CourseTemplateRequest, once with its required fields required (create) and once with every
 * field optional (update). Nullable fields take null to clear; the others refuse it.
 */
function courseTemplateFields(create: boolean) {
  class CourseTemplateFields {
    /** SCORM courses only: the player settings to set. */
    @Required(false) @IsObject() @ValidateNested() @Type(() => ScormSettingsRequest)
    scorm?: ScormSettingsRequest;

    @Required(create) @IsText(MAX_TITLE) @Matches(/\S/, { message: 'title must not be blank' })
    title?: string;

    @IsOptional() @IsText(MAX_DESCRIPTION)
    description?: string | null;

    /** Create: true publishes at once. Update: false unpublishes; true needs `POST .../publish` unless already published. */
    @Required(create) @IsBoolean()
    is_published?: boolean;

    /** State the service keeps (edits set it, publish clears it); accepted as the spec lists it, never stored from input. */
    @Required(create) @IsBoolean()
    has_unpublished_changes?: boolean;

    @Required(create) @IsInt() @Min(0) @Max(36_500)
    default_days_until_due?: number;

    @IsOptional() @IsPlainDate()
    default_due_on_date?: string | null;

    @IsOptional() @IsIn(DUE_DATE_TYPES)
    due_date_type?: string | null;

    @Required(create) @IsIn(COURSE_TYPES, { message: `course_type must be one of: ${COURSE_TYPES.join(', ')}` })
    course_type?: CourseType;

    @IsOptional() @IsText(255)
    external_course_id?: string | null;

    @Required(false) @IsBoolean()
    has_certificate?: boolean;

    @IsOptional() @IsInt() @Min(0) @Max(100)
    passing_threshold?: number | null;

    @IsOptional() @IsInt() @Min(1) @Max(1000)
    max_quiz_attempts?: number | null;

    @IsOptional() @IsInt() @Min(0) @Max(1_000_000)
    continuing_education_credits?: number | null;

    @Required(false) @IsBoolean()
    open_book?: boolean;

    @Required(false) @apply(Tags())
    tags?: string[];

    @Required(false) @apply(Tags())
    matching_tags?: string[];

    @Required(false) @IsBoolean()
    maintain_branding_in_sub_account?: boolean;

    @Required(false) @IsBoolean()
    locked_attributes_enabled?: boolean;

    @Required(false) @IsArray() @ArrayMaxSize(LOCKABLE_COURSE_ATTRIBUTES.length) @ArrayUnique() @IsIn(LOCKABLE_COURSE_ATTRIBUTES, { each: true, message: `each locked attribute must be one of: ${LOCKABLE_COURSE_ATTRIBUTES.join(', ')}` })
    locked_attributes?: string[];

    /** Completions expire `default_days_until_expiration` days after they are made. */
    @Required(false) @IsBoolean()
    expires?: boolean;

    @IsOptional() @IsInt() @Min(1) @Max(36_500)
    default_days_until_expiration?: number | null;

    /** An expiring completion gets a new attempt, `re_enrollment_period` days before it expires (0 or null: when it expires). */
    @Required(false) @IsBoolean()
    auto_re_enroll?: boolean;

    @IsOptional() @IsInt() @Min(0) @Max(36_500)
    re_enrollment_period?: number | null;

    /** Completing the course schedules retain quizzes, one per `retain_intervals` day count (docs/learner.md). */
    @Required(false) @IsBoolean()
    retain?: boolean;

    /** A learner's answer to a quiz slide shows the correct choices once the slide is done for them (docs/catalog.md "Quiz slides"). */
    @Required(false) @IsBoolean()
    show_correct_response?: boolean;

    /** Learners may enroll themselves at the course's `enroll_url` (docs/learner.md): its enrollment profile, not its content. */
    @Required(false) @IsBoolean()
    open_enrollment?: boolean;

    /** Days after the completion each retain quiz falls due. */
    @Required(false) @IsArray() @ArrayMaxSize(20) @IsInt({ each: true }) @Min(0, { each: true }) @Max(3650, { each: true })
    retain_intervals?: number[];

    /** Derived by the service (course + sub-account + root locks); accepted as the spec lists it, never stored. */
    @Required(false) @IsArray() @ArrayMaxSize(LOCKABLE_COURSE_ATTRIBUTES.length) @IsIn(LOCKABLE_COURSE_ATTRIBUTES, { each: true })
    derived_locked_attributes?: string[];
  }
  return CourseTemplateFields;
}

export class CourseTemplateRequest extends courseTemplateFields(true) {}
export class CourseTemplateChanges extends courseTemplateFields(false) {}

export class CreateCourseTemplatesBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => CourseTemplateRequest)
  course_templates: CourseTemplateRequest[];
}

export class UpdateCourseTemplateBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => CourseTemplateChanges)
  course_template: CourseTemplateChanges;
}

export class PublishCourseTemplateBody {
  @IsOptional() @IsIn(NOTIFY_FILTERS, { message: `notify_filter must be one of: ${NOTIFY_FILTERS.join(', ')}` })
  notify_filter?: NotifyFilter;

  @IsOptional() @IsText(1000)
  notify_message?: string;

  @IsOptional() @IsBoolean()
  re_enroll?: boolean;
}

/** Sort, filters and search: shared by the list and the titles. */
class CourseTemplateSelection extends PageQuery {
  @IsOptional() @QueryArray() @IsArray() @ArrayMaxSize(COURSE_TEMPLATE_FILTERS.length * 2) @IsIn(COURSE_TEMPLATE_FILTERS, { each: true, message: `each filter must be one of: ${COURSE_TEMPLATE_FILTERS.join(', ')}` })
  filters?: CourseTemplateFilter[];

  /** Case-insensitive substring of the title. */
  @IsOptional() @IsText(255)
  search?: string;
}

const DateFilter = () => apply([IsOptional(), IsTimestamp({ message: '$property must be an RFC 3339 date-time' })]);

export class ListCourseTemplatesQuery extends CourseTemplateSelection {
  @IsOptional() @IsIn(COURSE_TEMPLATE_SORTS, { message: `sort must be one of: ${COURSE_TEMPLATE_SORTS.join(', ')}` })
  sort?: CourseTemplateSort;

  @IsOptional() @QueryArray() @IsArray() @ArrayMaxSize(COURSE_TEMPLATE_LIST_INCLUDES.length * 2) @IsIn(COURSE_TEMPLATE_LIST_INCLUDES, { each: true, message: `each include must be one of: ${COURSE_TEMPLATE_LIST_INCLUDES.join(', ')}` })
  includes?: CourseTemplateListInclude[];

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

export class CourseTemplateTitlesQuery extends CourseTemplateSelection {
  @IsOptional() @IsIn(COURSE_TEMPLATE_TITLE_SORTS, { message: `sort must be one of: ${COURSE_TEMPLATE_TITLE_SORTS.join(', ')}` })
  sort?: Exclude<CourseTemplateSort, 'archived'>;
}

export class ShowCourseTemplateQuery {
  /** The spec lists it on show with no effect; accepted and ignored. */
  @IsOptional() @IsText(50)
  sort?: string;

  @IsOptional() @QueryArray() @IsArray() @ArrayMaxSize(COURSE_TEMPLATE_SHOW_INCLUDES.length * 2) @IsIn(COURSE_TEMPLATE_SHOW_INCLUDES, { each: true, message: `each include must be one of: ${COURSE_TEMPLATE_SHOW_INCLUDES.join(', ')}` })
  includes?: CourseTemplateShowInclude[];
}

/** `:course_template_id` of the nested routes (authors, slides). */
export class CourseTemplateParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  course_template_id: number;
}

export interface EnrollmentCountsView {
  all: number;
  required: number;
  optional: number;
  finished: number;
  not_started: number;
  overdue: number;
  in_progress: number;
}

export interface CourseTemplateSubAccountView {
  id: string;
  name: string;
  is_root: boolean;
  not_current: boolean;
  sub_accounts_exist: boolean;
}

export interface ScormSettingsView {
  registration_instancing_option: string;
  player_launch_type: string;
  sco_launch_type: string;
  score_rollup_mode: string;
}

/** The `scorm` block on show: the settings, and what the current package says. */
export interface ScormBlockView extends ScormSettingsView {
  scorm_version: string | null;
  launch_sco: string | null;
  package_title: string | null;
  package_uploaded_at: string | null;
}

export interface CourseTemplateView {
  id: string;
  estimated_time: number | null;
  passing_threshold: number | null;
  max_quiz_attempts: number | null;
  continuing_education_credits: number | null;
  title: string;
  description: string | null;
  is_published: boolean;
  has_unpublished_changes: boolean;
  default_days_until_due: number;
  default_due_on_date: string | null;
  due_date_type: string | null;
  has_certificate: boolean;
  external_status: string;
  external_status_message: string;
  course_type: CourseType;
  open_book: boolean;
  enrollments_count: number;
  attachments_count: number;
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
  third_party_course_id: string | null;
  external_course_id: string | null;
  next_section_due: string | null;
  sub_account: CourseTemplateSubAccountView | null;
  has_shared_enrollments: boolean;
  tags: string[];
  matching_tags: string[];
  retain: boolean;
  retain_intervals: number[];
  show_correct_response: boolean;
  maintain_branding_in_sub_account: boolean;
  links: { author: string };
  locked_attributes_enabled: boolean;
  locked_attributes: string[];
  derived_locked_attributes: string[];
  enrollment_counts?: EnrollmentCountsView;
  expires?: boolean;
  default_days_until_expiration?: number | null;
  auto_re_enroll?: boolean;
  re_enrollment_period?: number | null;
  enroll_url?: string;
  open_enrollment?: boolean;
  uuid?: string;
  program_ids?: string[];
  scorm?: ScormBlockView;
  slides?: unknown[];
}

/** Data of the created/updated/deleted/restored events. */
export interface CourseTemplateEventData {
  id: number;
  title: string;
  course_type: CourseType;
  is_published: boolean;
  sub_account_id: number | null;
}

export interface CourseTemplatePublishedData extends CourseTemplateEventData {
  published_at: string;
  /** Who of the course's learners is told (null: nobody); the notifications are the enrollment feature's. */
  notify_filter: NotifyFilter | null;
  notify_message: string | null;
  re_enroll: boolean;
  published_by: number;
  /**
   * Who is told (notify_filter among the course's live enrollments): user ids, the first
   * PUBLISH_RECIPIENTS_BATCH of them; the rest follow in `catalog.course_template.publish_recipients`.
   */
  recipients: number[];
  recipients_count: number;
}

/** The recipients of a publish beyond the first batch (data: PublishRecipientsData). */
export const COURSE_TEMPLATE_PUBLISH_RECIPIENTS_EVENT = 'catalog.course_template.publish_recipients';

export interface PublishRecipientsData {
  course_template_id: number;
  /** The course's title at publish, as the published event has it (for the notification; absent in older events). */
  title?: string;
  published_at: string;
  notify_filter: NotifyFilter;
  notify_message: string | null;
  /** 2, 3, …: the published event carries batch 1. */
  batch: number;
  recipients: number[];
}

const int = { type: 'integer' } as const;
const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const strings = { type: 'array', items: { type: 'string' } } as const;

export const ENROLLMENT_COUNTS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['all', 'required', 'optional', 'finished', 'not_started', 'overdue', 'in_progress'],
  properties: Object.fromEntries(['all', 'required', 'optional', 'finished', 'not_started', 'overdue', 'in_progress'].map((k) => [k, { type: 'integer', minimum: 0 }])),
};

export const SUB_ACCOUNT_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  required: ['id', 'name', 'is_root', 'not_current', 'sub_accounts_exist'],
  properties: {
    id: { type: 'string' }, name: { type: 'string' }, is_root: { type: 'boolean' },
    not_current: { type: 'boolean', description: "the course's sub-account is not the caller's current one" },
    sub_accounts_exist: { type: 'boolean' },
  },
};

export const COURSE_TEMPLATE_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'id', 'estimated_time', 'title', 'is_published', 'has_unpublished_changes', 'course_type', 'external_status', 'created_at', 'updated_at',
    'sub_account', 'links', 'locked_attributes', 'derived_locked_attributes', 'enrollments_count', 'attachments_count',
  ],
  properties: {
    id: { type: 'string', description: 'numeric text' },
    estimated_time: nullable('integer', { description: "minutes: the sum of the slides' estimated times; null without slides" }),
    passing_threshold: nullable('integer'), max_quiz_attempts: nullable('integer'), continuing_education_credits: nullable('integer'),
    title: { type: 'string' }, description: nullable('string'),
    is_published: { type: 'boolean' }, has_unpublished_changes: { type: 'boolean' },
    default_days_until_due: int, default_due_on_date: nullable('string', { format: 'date' }), due_date_type: nullable('string'),
    has_certificate: { type: 'boolean' },
    external_status: { type: 'string', description: "'inapplicable' for native courses; 'pending' or 'synced' for SCORM, 'pending' for third-party" },
    external_status_message: { type: 'string' },
    course_type: { type: 'string', enum: [...COURSE_TYPES] },
    open_book: { type: 'boolean' }, enrollments_count: int, attachments_count: int,
    created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' },
    deleted_at: nullable('string', { format: 'date-time', description: 'lists: only with only_deleted or with_deleted' }),
    third_party_course_id: nullable('string'), external_course_id: nullable('string'),
    next_section_due: nullable('string', { format: 'date-time' }),
    sub_account: SUB_ACCOUNT_SCHEMA,
    has_shared_enrollments: { type: 'boolean' },
    tags: strings, matching_tags: strings, retain: { type: 'boolean' }, retain_intervals: { type: 'array', items: int },
    show_correct_response: { type: 'boolean' }, maintain_branding_in_sub_account: { type: 'boolean' },
    links: { type: 'object', required: ['author'], properties: { author: { type: 'string', description: "the creating author's user path" } } },
    locked_attributes_enabled: { type: 'boolean' }, locked_attributes: strings,
    derived_locked_attributes: { ...strings, description: "the course's locked attributes plus those its sub-account and the root sub-account lock" },
    enrollment_counts: { ...ENROLLMENT_COUNTS_SCHEMA, description: 'list with includes[]=counts; always on show' },
    expires: { type: 'boolean', description: 'list with includes[]=expiration' },
    default_days_until_expiration: nullable('integer'), auto_re_enroll: { type: 'boolean' }, re_enrollment_period: nullable('integer'),
    enroll_url: { type: 'string', description: 'list with includes[]=enrollment_profiles' }, open_enrollment: { type: 'boolean' }, uuid: { type: 'string', format: 'uuid' },
    program_ids: { ...strings, description: 'with includes[]=programs; always on create and update' },
    scorm: {
      type: 'object', description: 'SCORM courses, on show',
      properties: {
        registration_instancing_option: { type: 'string' }, player_launch_type: { type: 'string' }, sco_launch_type: { type: 'string' }, score_rollup_mode: { type: 'string' },
        scorm_version: { ...nullable('string'), description: 'scorm_1_2, scorm_2004_3rd or scorm_2004_4th, from the package; null before one is uploaded' },
        launch_sco: { ...nullable('string'), description: "the launch SCO's item identifier in the package's manifest" },
        package_title: nullable('string'),
        package_uploaded_at: nullable('string', { format: 'date-time' }),
      },
    },
    slides: { type: 'array', description: 'show with includes[]=with_content: the OrderedSlides in draft order', items: { type: 'object' } },
  },
};

export const COURSE_TEMPLATE_TITLE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'title'],
  properties: { id: { type: 'string' }, title: { type: 'string' } },
};
