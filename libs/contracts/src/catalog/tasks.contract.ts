import { Type } from 'class-transformer';
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
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MAX_ID, PageQuery } from '../common/query.js';
import { IsPlainDate } from '../identity/users.contract.js';
import type { JsonSchema } from '../routes/route.js';
import { IsText, NoNul } from './text.js';
import { type CourseTemplateSubAccountView, DUE_DATE_TYPES, SUB_ACCOUNT_SCHEMA } from './course-templates.contract.js';

export const TASK_SUBJECTS = {
  list: 'catalog.tasks.list',
  show: 'catalog.tasks.show',
  create: 'catalog.tasks.create',
  update: 'catalog.tasks.update',
  delete: 'catalog.tasks.delete',
  clone: 'catalog.tasks.clone',
} as const;

/** data: TaskEventData */
export const TASK_CREATED_EVENT = 'catalog.task.created';
export const TASK_UPDATED_EVENT = 'catalog.task.updated';
export const TASK_DELETED_EVENT = 'catalog.task.deleted';

/** 'manager': each learner's manager approves; 'user': the user named by default_approver_id. */
export const APPROVER_TYPES = ['manager', 'user'] as const;

const Required = (required: boolean) => (required ? IsDefined() : ValidateIf((_, value) => value !== undefined));

function taskFields(create: boolean) {
  class TaskFields {
    @Required(create) @IsText(255) @Matches(/\S/, { message: 'title must not be blank' })
    title?: string;

    @IsOptional() @IsText(20_000)
    instructions?: string | null;

    @IsOptional() @IsText(20_000)
    description?: string | null;

    @IsOptional() @IsText(100_000)
    structured_body?: string | null;

    /** true: what is saved is what learners see (tasks have no publish endpoint); false: a draft. */
    @Required(false) @IsBoolean()
    is_published?: boolean;

    @Required(false) @IsBoolean()
    has_certificate?: boolean;

    /** Learners may enroll themselves (`POST /api/learner/open_tasks/:open_task_id/enrollment`; docs/learner.md). */
    @Required(false) @IsBoolean()
    open_enrollment?: boolean;

    @Required(false) @IsBoolean()
    requires_approval?: boolean;

    @Required(false) @IsBoolean()
    blocks_progress?: boolean;

    @Required(false) @IsBoolean()
    requires_evidence?: boolean;

    @Required(false) @IsArray() @ArrayMaxSize(50) @IsObject({ each: true }) @NoNul()
    attachments?: Record<string, unknown>[];

    @IsOptional() @IsIn(APPROVER_TYPES, { message: `default_approver_type must be one of: ${APPROVER_TYPES.join(', ')}` })
    default_approver_type?: string | null;

    /** The approving user when default_approver_type is 'user'. */
    @IsOptional() @IsInt() @Min(1) @Max(MAX_ID)
    default_approver_id?: number | null;

    @Required(false) @IsIn(DUE_DATE_TYPES)
    due_date_type?: string;

    @IsOptional() @IsPlainDate()
    default_due_on_date?: string | null;

    @Required(false) @IsInt() @Min(0) @Max(36_500)
    default_days_until_due?: number;
  }
  return TaskFields;
}

export class TaskRequest extends taskFields(true) {}
export class TaskChanges extends taskFields(false) {}

export class CreateTasksBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => TaskRequest)
  tasks: TaskRequest[];
}

export class UpdateTaskBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => TaskChanges)
  task: TaskChanges;
}

export class ListTasksQuery extends PageQuery {
  /** Case-insensitive substring of the title. */
  @IsOptional() @IsText(255)
  search?: string;
}

export interface TaskAuthorView {
  id: string;
  uid: string;
  name: string;
  email: string | null;
  avatar_url: string | null;
}

export interface TaskView {
  id: string;
  title: string;
  author_id: string;
  instructions: string | null;
  description: string | null;
  has_unpublished_changes: boolean;
  structured_body: string | null;
  is_published: boolean;
  enrollments_count: number;
  enrollment_counts: { all: number; overdue: number; incomplete: number; finished: number };
  has_certificate: boolean;
  requires_approval: boolean;
  blocks_progress: boolean;
  updated_at: string;
  attachments_count: number;
  requires_evidence: boolean;
  author: TaskAuthorView | null;
  sub_account: CourseTemplateSubAccountView | null;
  default_approver_type: string | null;
  default_approver_id: string | null;
  default_approver: TaskAuthorView | null;
  due_date_type: string;
  default_due_on_date: string | null;
  default_days_until_due: number;
  attachments: unknown[];
}

export interface TaskEventData {
  id: number;
  title: string;
  is_published: boolean;
  /** Set on the copy a clone made. */
  cloned_from?: number;
}

const PERSON_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  required: ['id', 'uid', 'name', 'email', 'avatar_url'],
  properties: { id: { type: 'string' }, uid: { type: 'string' }, name: { type: 'string' }, email: { type: ['string', 'null'] }, avatar_url: { type: ['string', 'null'] } },
};

export const TASK_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'id', 'title', 'author_id', 'instructions', 'description', 'has_unpublished_changes', 'structured_body', 'is_published', 'enrollments_count',
    'enrollment_counts', 'has_certificate', 'requires_approval', 'blocks_progress', 'updated_at', 'attachments_count', 'requires_evidence', 'author',
    'sub_account', 'default_approver_type', 'default_approver_id', 'default_approver', 'due_date_type', 'default_due_on_date', 'default_days_until_due',
  ],
  properties: {
    id: { type: 'string' }, title: { type: 'string' }, author_id: { type: 'string' },
    instructions: { type: ['string', 'null'] }, description: { type: ['string', 'null'] }, has_unpublished_changes: { type: 'boolean' },
    structured_body: { type: ['string', 'null'] }, is_published: { type: 'boolean' }, enrollments_count: { type: 'integer' },
    enrollment_counts: {
      type: 'object', required: ['all', 'overdue', 'incomplete', 'finished'],
      properties: { all: { type: 'integer' }, overdue: { type: 'integer' }, incomplete: { type: 'integer' }, finished: { type: 'integer' } },
    },
    has_certificate: { type: 'boolean' }, requires_approval: { type: 'boolean' }, blocks_progress: { type: 'boolean' },
    updated_at: { type: 'string', format: 'date-time' }, attachments_count: { type: 'integer' }, requires_evidence: { type: 'boolean' },
    author: { ...PERSON_SCHEMA, description: 'the creating author (null when identity no longer shows them)' },
    sub_account: SUB_ACCOUNT_SCHEMA,
    default_approver_type: { type: ['string', 'null'], enum: [...APPROVER_TYPES, null] },
    default_approver_id: { type: ['string', 'null'] },
    default_approver: { ...PERSON_SCHEMA, description: "the approving user when default_approver_type is 'user'" },
    due_date_type: { type: 'string', enum: [...DUE_DATE_TYPES] }, default_due_on_date: { type: ['string', 'null'], format: 'date' },
    default_days_until_due: { type: 'integer' },
    attachments: { type: 'array', items: { type: 'object' } },
  },
};
