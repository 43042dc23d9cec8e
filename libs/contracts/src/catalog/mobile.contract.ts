import { Transform, type TransformFnParams } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsInt, Max, Min } from 'class-validator';
import { commaSeparated, MAX_ID } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { BLOCKED_BY_SCHEMA, type BlockedByView } from './programs.contract.js';

export const MOBILE_SUBJECTS = {
  courses: 'catalog.mobile_courses.list',
  course: 'catalog.mobile_courses.show',
  tasks: 'catalog.mobile_tasks.list',
  task: 'catalog.mobile_tasks.show',
} as const;

/** As many as a page of any list holds: an app asks for the items of the page it shows. */
export const MAX_MOBILE_IDS = 1000;

/**
 * `ids=1,2`, `ids[]=1&ids[]=2` and `ids=1` become `[1, 2]`; empty parts (`1,2,`, a list joined with a
 * trailing comma) are left out; text that is not an integer stays for the validator to refuse.
 */
const QueryIntArray = () =>
  Transform(({ value }: TransformFnParams) =>
    value === undefined
      ? undefined
      : commaSeparated(value)
          .filter((v) => typeof v !== 'string' || v.trim() !== '')
          .map((v) => (typeof v === 'string' && /^\d{1,10}$/.test(v.trim()) ? Number(v.trim()) : v)),
  );

const ids = (): PropertyDecorator => (target, key) =>
  [IsDefined({ message: `${String(key)} is required` }), QueryIntArray(), IsArray(), ArrayMinSize(1), ArrayMaxSize(MAX_MOBILE_IDS), IsInt({ each: true, message: `each of ${String(key)} must be an integer` }), Min(1, { each: true }), Max(MAX_ID, { each: true })].forEach((d) => d(target, key));

export class MobileCoursesQuery {
  @ids()
  course_template_ids: number[];
}

export class MobileTasksQuery {
  @ids()
  task_ids: number[];
}

export interface MobileCourseItem {
  enrollment: {
    id: number;
    completed_at: string | null;
    end_at: string | null;
    learning_item_id: number;
    required: boolean;
    score: number | null;
    state: string;
    time_remaining: number;
    /** The checkpoint to complete before this course can be started (docs/catalog.md), or null. */
    blocked_by: BlockedByView | null;
  } | null;
  enrollment_profile: { enroll_url: string; has_certificate: boolean; open_enrollment: boolean; uuid: string };
  template: {
    id: number;
    course_type: string;
    description: string | null;
    estimated_time: number;
    has_quizzes: boolean;
    external_info: { available_offline: boolean; external_learning_standard: string; external_version: number } | null;
    title: string;
    cover_slide_data?: { background_image_url: string | null };
    launch_url: string;
  };
}

export interface MobileTaskItem {
  enrollment: { id: number; end_at: string | null; required: boolean; state: string; approval: { id: number; state: string } | null; blocked_by: BlockedByView | null } | null;
  enrollment_profile: { has_certificate: boolean; open_enrollment: boolean; uuid: string };
  template: {
    id: number;
    attachments_count: number;
    description: string | null;
    title: string;
    cover_slide_data: { background_image_url: string | null };
    launch_url: string;
    requires_approval: boolean;
    requires_evidence: boolean;
  };
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const COVER = { type: 'object', required: ['background_image_url'], properties: { background_image_url: nullable('string') } };

export const MOBILE_COURSE_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['enrollment', 'enrollment_profile', 'template'],
  properties: {
    enrollment: {
      type: ['object', 'null'],
      required: ['id', 'completed_at', 'end_at', 'learning_item_id', 'required', 'score', 'state', 'time_remaining', 'blocked_by'],
      properties: {
        id: { type: 'integer' }, completed_at: nullable('string', { format: 'date-time' }), end_at: nullable('string', { format: 'date-time' }),
        learning_item_id: { type: 'integer' }, required: { type: 'boolean' }, score: nullable('integer'), state: { type: 'string' }, time_remaining: { type: 'integer' },
        blocked_by: BLOCKED_BY_SCHEMA,
      },
    },
    enrollment_profile: {
      type: 'object',
      required: ['enroll_url', 'has_certificate', 'open_enrollment', 'uuid'],
      properties: { enroll_url: { type: 'string' }, has_certificate: { type: 'boolean' }, open_enrollment: { type: 'boolean' }, uuid: { type: 'string', format: 'uuid' } },
    },
    template: {
      type: 'object',
      required: ['id', 'course_type', 'description', 'estimated_time', 'has_quizzes', 'external_info', 'title', 'launch_url'],
      properties: {
        id: { type: 'integer' }, course_type: { type: 'string' }, description: nullable('string'), estimated_time: { type: 'integer' }, has_quizzes: { type: 'boolean' },
        external_info: {
          type: ['object', 'null'],
          required: ['available_offline', 'external_learning_standard', 'external_version'],
          properties: { available_offline: { type: 'boolean' }, external_learning_standard: { type: 'string' }, external_version: { type: 'integer' } },
        },
        title: { type: 'string' }, cover_slide_data: COVER, launch_url: { type: 'string' },
      },
    },
  },
};

export const MOBILE_TASK_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['enrollment', 'enrollment_profile', 'template'],
  properties: {
    enrollment: {
      type: ['object', 'null'],
      required: ['id', 'end_at', 'required', 'state', 'approval', 'blocked_by'],
      properties: {
        id: { type: 'integer' }, end_at: nullable('string', { format: 'date-time' }), required: { type: 'boolean' }, state: { type: 'string' },
        approval: { type: ['object', 'null'], required: ['id', 'state'], properties: { id: { type: 'integer' }, state: { type: 'string' } } },
        blocked_by: BLOCKED_BY_SCHEMA,
      },
    },
    enrollment_profile: {
      type: 'object',
      required: ['has_certificate', 'open_enrollment', 'uuid'],
      properties: { has_certificate: { type: 'boolean' }, open_enrollment: { type: 'boolean' }, uuid: { type: 'string', format: 'uuid' } },
    },
    template: {
      type: 'object',
      required: ['id', 'attachments_count', 'description', 'title', 'cover_slide_data', 'launch_url', 'requires_approval', 'requires_evidence'],
      properties: {
        id: { type: 'integer' }, attachments_count: { type: 'integer' }, description: nullable('string'), title: { type: 'string' }, cover_slide_data: COVER,
        launch_url: { type: 'string' }, requires_approval: { type: 'boolean' }, requires_evidence: { type: 'boolean' },
      },
    },
  },
};

const withType = (schema: JsonSchema, type: string): JsonSchema => ({
  ...schema,
  required: [...(schema.required as string[]), 'type'],
  properties: { ...(schema.properties as Record<string, unknown>), type: { type: 'string', enum: [type] } },
});
export const MOBILE_COURSE_SCHEMA = withType(MOBILE_COURSE_ITEM_SCHEMA, 'CourseTemplate');
export const MOBILE_TASK_SCHEMA = withType(MOBILE_TASK_ITEM_SCHEMA, 'Task');
