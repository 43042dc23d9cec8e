import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsObject, IsOptional, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import { MAX_ID, PageQuery } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { IsText } from './text.js';
import { SKIPPED_ENROLLMENT_SCHEMA } from './enrollments.contract.js';
import { NullAllowed } from '../common/documented.js';

export const PROGRAM_SUBJECTS = {
  list: 'catalog.programs.list',
  show: 'catalog.programs.show',
  create: 'catalog.programs.create',
  update: 'catalog.programs.update',
  delete: 'catalog.programs.delete',
  enroll: 'catalog.programs.enroll',
  enrollments: 'catalog.programs.enrollments',
} as const;

/** data: ProgramEventData. `updated` also when an archived course leaves the program. */
export const PROGRAM_CREATED_EVENT = 'catalog.program.created';
export const PROGRAM_UPDATED_EVENT = 'catalog.program.updated';
export const PROGRAM_DELETED_EVENT = 'catalog.program.deleted';

/** How many courses one program holds at most. */
export const MAX_PROGRAM_COURSES = 200;
/** How many items (courses and checkpoints together) one program holds at most. */
export const MAX_PROGRAM_ITEMS = 200;

/** What a program's order holds: course templates and tasks (checkpoints). */
export const PROGRAM_ITEM_TYPES = ['CourseTemplate', 'Task'] as const;
export type ProgramItemType = (typeof PROGRAM_ITEM_TYPES)[number];

/** One place in a program's order, as written: `{type, id}`. */
export class ProgramItemInput {
  @IsDefined() @IsIn(PROGRAM_ITEM_TYPES, { message: `type must be one of ${PROGRAM_ITEM_TYPES.join(', ')}` })
  type: ProgramItemType;

  @IsDefined() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

const Required = (required: boolean) => (required ? IsDefined() : ValidateIf((_, value) => value !== undefined));

function programFields(create: boolean) {
  class ProgramFields {
    @Required(create) @IsText(255) @Matches(/\S/, { message: 'title must not be blank' })
    title?: string;

    @IsOptional() @IsText(20_000)
    description?: string | null;

    /** The program's courses in order (first is taken first); replaces the whole list on update. */
    @Required(false)
    @IsArray() @ArrayMaxSize(MAX_PROGRAM_COURSES) @ArrayUnique({ message: 'course_template_ids must not repeat a course' })
    @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true })
    course_template_ids?: number[];

    /**
     * The program's whole order, courses and checkpoints (docs/catalog.md "Programs"); replaces it on
     * update. Not together with `course_template_ids`.
     */
    @Required(false)
    @IsArray() @ArrayMaxSize(MAX_PROGRAM_ITEMS) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ProgramItemInput)
    @ArrayUnique((item: ProgramItemInput) => (item && typeof item === 'object' ? `${String(item.type)}:${String(item.id)}` : item), { message: 'items must not repeat an item' })
    items?: ProgramItemInput[];

    @Required(false) @IsBoolean()
    is_published?: boolean;

    /** Learners may enroll themselves through the program's `enroll_url`. */
    @Required(false) @IsBoolean()
    open_enrollment?: boolean;
  }
  return ProgramFields;
}

export class ProgramRequest extends programFields(true) {}
export class ProgramChanges extends programFields(false) {}

export class CreateProgramsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ProgramRequest)
  programs: ProgramRequest[];
}

export class UpdateProgramBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => ProgramChanges)
  program: ProgramChanges;
}

export class ListProgramsQuery extends PageQuery {
  /** Case-insensitive substring of the title. */
  @IsOptional() @IsText(255)
  search?: string;
}

/** One place in a program's order, as read. `position` is 1-based over the whole order. */
export interface ProgramItemView {
  type: ProgramItemType;
  id: string;
  position: number;
}

export interface ProgramView {
  id: string;
  title: string;
  description: string | null;
  is_published: boolean;
  author_id: string;
  /** In program order. */
  course_template_ids: string[];
  courses_count: number;
  /** Courses and checkpoints, in program order. */
  items: ProgramItemView[];
  open_enrollment: boolean;
  uuid: string;
  enroll_url: string;
  created_at: string;
  updated_at: string;
}

export interface ProgramEventData {
  id: number;
  title: string;
  is_published: boolean;
  open_enrollment: boolean;
  course_template_ids: number[];
  /** The whole order, courses and checkpoints. */
  items: { type: ProgramItemType; id: number }[];
}

export const PROGRAM_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'id', 'position'],
  properties: {
    type: { type: 'string', enum: [...PROGRAM_ITEM_TYPES] },
    id: { type: 'string', description: 'the course template or task id, numeric text' },
    position: { type: 'integer', minimum: 1, description: '1-based place in the whole order' },
  },
};

export const PROGRAM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'description', 'is_published', 'author_id', 'course_template_ids', 'courses_count', 'items', 'open_enrollment', 'uuid', 'enroll_url', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', description: 'numeric text' },
    title: { type: 'string' },
    description: { type: ['string', 'null'] },
    is_published: { type: 'boolean' },
    author_id: { type: 'string', description: 'the creating user' },
    course_template_ids: { type: 'array', items: { type: 'string' }, description: "the program's courses in order" },
    courses_count: { type: 'integer', minimum: 0 },
    items: { type: 'array', items: PROGRAM_ITEM_SCHEMA, description: "the program's courses and checkpoints (tasks) in order" },
    open_enrollment: { type: 'boolean' },
    uuid: { type: 'string', format: 'uuid', description: "the program's public enrollment id" },
    enroll_url: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

/** One user to enroll in every published course of a program. */
export class ProgramEnrollmentEntry {
  @IsDefined() @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;

  /** Default true. */
  @IsOptional() @IsBoolean()
  required?: boolean;

  /** Due moment of every course enrollment; absent: each course's default; null: no due date. */
  @IsOptional() @NullAllowed() @IsTimestamp({ message: 'end_at must be an RFC 3339 date-time' })
  end_at?: string | null;
}

export class CreateProgramEnrollmentsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ProgramEnrollmentEntry)
  enrollments: ProgramEnrollmentEntry[];
}

/** A course of the program nobody was enrolled in, and why. */
export interface SkippedProgramCourseView {
  course_template_id: string;
  reason: 'not_published';
}

/** A checkpoint of the program nobody was enrolled in, and why. */
export interface SkippedProgramTaskView {
  task_id: string;
  reason: 'not_published';
}

/** A user the program request enrolled nowhere new in one of its items (`skipped`): the course or the checkpoint is named. */
export const SKIPPED_PROGRAM_ENROLLMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['user_id', 'reason', 'enrollment_id'],
  properties: {
    ...(SKIPPED_ENROLLMENT_SCHEMA.properties as Record<string, JsonSchema>),
    course_template_id: { type: 'string', description: 'numeric text; the item is a course (else task_id names a checkpoint)' },
    task_id: { type: 'string', description: 'numeric text; the item is a checkpoint' },
  },
};

/** An item of the program nobody was enrolled in (`skipped_courses`, `skipped_tasks`), and why. */
const skippedItem = (key: string): JsonSchema => ({
  type: 'object',
  required: [key, 'reason'],
  properties: { [key]: { type: 'string', description: 'numeric text' }, reason: { type: 'string', enum: ['not_published'] } },
});
export const SKIPPED_PROGRAM_COURSE_SCHEMA = skippedItem('course_template_id');
export const SKIPPED_PROGRAM_TASK_SCHEMA = skippedItem('task_id');

export const PROGRAM_ENROLLMENT_STATES = ['incomplete', 'complete'] as const;
export type ProgramEnrollmentState = (typeof PROGRAM_ENROLLMENT_STATES)[number];

export class ListProgramEnrollmentsQuery extends PageQuery {
  @IsOptional() @IsIn(PROGRAM_ENROLLMENT_STATES)
  state?: ProgramEnrollmentState;
}

/**
 * A learner's enrollment in a program as a whole: complete once every published course and checkpoint of
 * the program is (docs/catalog.md, "Program enrollments"); the course enrollments it brought carry its program_id.
 */
export interface ProgramEnrollmentView {
  id: string;
  program_id: string;
  user_id: string;
  state: ProgramEnrollmentState;
  required: boolean;
  end_at: string | null;
  completed_at: string | null;
  /** Published courses of the program now (but those the learner was taken out of), and how many of them the learner has completed. */
  courses_count: number;
  completed_courses_count: number;
  /** Published checkpoints (tasks) of the program now, and how many of them the learner has completed. */
  tasks_count: number;
  completed_tasks_count: number;
  created_at: string;
  updated_at: string;
}

export const PROGRAM_ENROLLMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'program_id', 'user_id', 'state', 'required', 'end_at', 'completed_at', 'courses_count', 'completed_courses_count', 'tasks_count', 'completed_tasks_count', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', description: 'numeric text' },
    program_id: { type: 'string' },
    user_id: { type: 'string' },
    state: { type: 'string', enum: [...PROGRAM_ENROLLMENT_STATES] },
    required: { type: 'boolean' },
    end_at: { type: ['string', 'null'], format: 'date-time', description: 'the due moment given at enrollment, if any' },
    completed_at: { type: ['string', 'null'], format: 'date-time', description: "when the learner's last course or checkpoint of the program completed" },
    courses_count: { type: 'integer', minimum: 0, description: 'published courses of the program, but those the learner was taken out of' },
    completed_courses_count: { type: 'integer', minimum: 0, description: 'of those, the ones the learner has completed' },
    tasks_count: { type: 'integer', minimum: 0, description: 'published checkpoints (tasks) of the program, but those the learner was taken out of' },
    completed_tasks_count: { type: 'integer', minimum: 0, description: 'of those, the ones the learner has completed' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

/**
 * The checkpoint holding a learner's item (docs/catalog.md "Checkpoints in programs"): a task with
 * `blocks_progress` placed before the item in a program the learner is enrolled in, not complete yet.
 * Both ids are Strings, as the spec types a task's id and as a program record's id is.
 */
export interface BlockedByView {
  task_id: string;
  title: string;
  program_id: string;
}

export const BLOCKED_BY_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  required: ['task_id', 'title', 'program_id'],
  description: 'the incomplete blocking checkpoint (task) before this item in one of your programs; null when nothing blocks it',
  properties: { task_id: { type: 'string' }, title: { type: 'string' }, program_id: { type: 'string' } },
};
