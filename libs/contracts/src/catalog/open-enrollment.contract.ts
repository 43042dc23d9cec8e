import { Matches } from 'class-validator';
import type { JsonSchema } from '../routes/route.js';
import { LEARNING_ITEM_SCHEMA } from './learner-courses.contract.js';

export const OPEN_ENROLLMENT_SUBJECTS = {
  enrollTask: 'catalog.open_tasks.enroll',
  taskEnrollments: 'catalog.open_tasks.enrollments',
  enrollProgram: 'catalog.open_programs.enroll',
  programEnrollments: 'catalog.open_programs.enrollments',
} as const;

/** An id (digits) or the enrollment profile's uuid: both name the item (docs/learner.md). */
const ID_OR_UUID = /^([1-9]\d{0,9}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const message = 'must be the id or the uuid of the item';

export class OpenTaskParams {
  @Matches(ID_OR_UUID, { message: `open_task_id ${message}` })
  open_task_id: string;
}

export class OpenProgramParams {
  @Matches(ID_OR_UUID, { message: `open_program_id ${message}` })
  open_program_id: string;
}

/** The caller's enrollments on an open item: learning item records (course enrollments of a program, or the task enrollment). */
export const OPEN_ENROLLMENT_SCHEMA: JsonSchema = LEARNING_ITEM_SCHEMA;
