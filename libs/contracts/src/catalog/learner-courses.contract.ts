import { IsInt, Max, Min } from 'class-validator';
import { MAX_ID, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { BLOCKED_BY_SCHEMA, type BlockedByView } from './programs.contract.js';

/** Learner courses (issue 15; docs/learner.md): the caller's own enrollments, by enrollment id. */
export const LEARNER_COURSE_SUBJECTS = {
  list: 'catalog.learner_courses.list',
  preview: 'catalog.learner_courses.preview',
  show: 'catalog.learner_courses.show',
  complete: 'catalog.learner_courses.complete',
  leave: 'catalog.learner_courses.leave',
  externalInfo: 'catalog.learner_courses.external_info',
} as const;

/** Learning items (deprecated): courses, live courses and programs the caller is enrolled in. */
export const LEARNING_ITEM_SUBJECTS = {
  list: 'catalog.learning_items.list',
  show: 'catalog.learning_items.show',
  delete: 'catalog.learning_items.delete',
} as const;

/** The spec's course_type of a live training in learner records. */
export const LIVE_TRAINING = 'live training';

/** The spec's LearnerCourseResponse, plus `course_template_id` / `live_course_id` naming the course. */
export interface LearnerCourseView {
  id: number;
  is_enrolled: boolean;
  progress: number;
  slide_total: number;
  time_remaining: number;
  location: string | null;
  sessions_count: number | null;
  next_session_start_at: string | null;
  deleted_at: string | null;
  program_title: string | null;
  index_of_program: number | null;
  program_course_count: number | null;
  open_book: boolean;
  completed_at: string | null;
  end_at: string | null;
  estimated_time: number;
  passing_threshold: number | null;
  required: boolean;
  score: number | null;
  state: string;
  title: string;
  has_certificate: boolean;
  course_type: string;
  attachments_count: number;
  course_template_id: number | null;
  live_course_id: number | null;
  /** The checkpoint that must be completed before this course can be started, or null. */
  blocked_by: BlockedByView | null;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const LEARNER_COURSE_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'id', 'is_enrolled', 'progress', 'slide_total', 'time_remaining', 'location', 'sessions_count', 'next_session_start_at', 'deleted_at', 'program_title',
    'index_of_program', 'program_course_count', 'open_book', 'completed_at', 'end_at', 'estimated_time', 'passing_threshold', 'required', 'score', 'state',
    'title', 'has_certificate', 'course_type', 'attachments_count', 'course_template_id', 'live_course_id', 'blocked_by',
  ],
  properties: {
    id: { type: 'integer', description: 'the enrollment id (preview of a course the caller is not enrolled in: the course template id)' },
    is_enrolled: { type: 'boolean' },
    progress: { type: 'integer', minimum: 0, description: 'current slide number' },
    slide_total: { type: 'integer', minimum: 0 },
    time_remaining: { type: 'integer', minimum: 0, description: 'minutes' },
    location: nullable('string', { description: 'live training only' }),
    sessions_count: nullable('integer', { description: 'future sessions; live training only' }),
    next_session_start_at: nullable('string', { format: 'date-time', description: 'live training only' }),
    deleted_at: nullable('string', { format: 'date-time' }),
    program_title: nullable('string', { description: 'null unless enrolled through a program' }),
    index_of_program: nullable('integer', { description: '1-based place of the course in its program' }),
    program_course_count: nullable('integer'),
    open_book: { type: 'boolean' },
    completed_at: nullable('string', { format: 'date-time' }),
    end_at: nullable('string', { format: 'date-time', description: 'due moment' }),
    estimated_time: { type: 'integer', minimum: 0, description: 'minutes' },
    passing_threshold: nullable('integer'),
    required: { type: 'boolean' },
    score: nullable('integer', { description: 'out of 100; null for live trainings' }),
    state: { type: 'string', description: 'assigned, active or complete' },
    title: { type: 'string' },
    has_certificate: { type: 'boolean' },
    course_type: { type: 'string', description: 'native, scorm, third_party_a, third_party_b or "live training"' },
    attachments_count: { type: 'integer', minimum: 0 },
    course_template_id: nullable('integer', { description: 'the course of a course enrollment (an addition to the spec)' }),
    live_course_id: nullable('integer', { description: 'the live course of a live training (an addition to the spec)' }),
    blocked_by: BLOCKED_BY_SCHEMA,
  },
};

/** `GET /api/learner/courses/:id/external_info`: what a client needs to run an external (SCORM, third-party) course. */
export interface ExternalInfoView {
  enrollment_id: number;
  course_template_id: number;
  course_type: string;
  external_course_id: string | null;
  third_party_course_id: string | null;
  external_status: string;
  external_status_message: string;
  available_offline: boolean;
  external_learning_standard: string;
  external_version: number;
  scorm: Record<string, string> | null;
}

export const EXTERNAL_INFO_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'enrollment_id', 'course_template_id', 'course_type', 'external_course_id', 'third_party_course_id', 'external_status', 'external_status_message',
    'available_offline', 'external_learning_standard', 'external_version', 'scorm',
  ],
  properties: {
    enrollment_id: { type: 'integer' },
    course_template_id: { type: 'integer' },
    course_type: { type: 'string', enum: ['scorm', 'third_party_a', 'third_party_b'] },
    external_course_id: nullable('string'),
    third_party_course_id: nullable('string'),
    external_status: { type: 'string' },
    external_status_message: { type: 'string' },
    available_offline: { type: 'boolean', description: 'true for SCORM packages, which a client may keep' },
    external_learning_standard: { type: 'string', description: "'scorm_1_2' for SCORM, else the third-party catalogue's name" },
    external_version: { type: 'integer', description: '1 once the course is published, else 0' },
    scorm: nullable('object', { description: 'the SCORM player settings of a SCORM course' }),
  },
};

/** A learning item: one enrollment of the caller, whatever kind of thing it is in. */
export interface LearningItemView {
  id: number;
  type: 'CourseTemplate' | 'Task' | 'LiveCourse';
  item_id: number;
  title: string;
  state: string;
  required: boolean;
  end_at: string | null;
  completed_at: string | null;
  program_id: number | null;
  program_title: string | null;
  created_at: string;
}

export const LEARNING_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'item_id', 'title', 'state', 'required', 'end_at', 'completed_at', 'program_id', 'program_title', 'created_at'],
  properties: {
    id: { type: 'integer', description: 'the enrollment id' },
    type: { type: 'string', enum: ['CourseTemplate', 'Task', 'LiveCourse'] },
    item_id: { type: 'integer', description: 'the course template, task or live course' },
    title: { type: 'string' },
    state: { type: 'string' },
    required: { type: 'boolean' },
    end_at: nullable('string', { format: 'date-time' }),
    completed_at: nullable('string', { format: 'date-time' }),
    program_id: nullable('integer', { description: 'the program that brought the item' }),
    program_title: nullable('string'),
    created_at: { type: 'string', format: 'date-time' },
  },
};

/** Path `:course_id` of a learner course (an enrollment id). */
export class LearnerCourseParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  course_id: number;
}
