import { ValidateBy } from 'class-validator';
import { MAX_ID, UUID } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { LEARNING_ITEM_SCHEMA } from './learner-courses.contract.js';
import { documented } from '../common/documented.js';

export const OPEN_ENROLLMENT_SUBJECTS = {
  enrollTask: 'catalog.open_tasks.enroll',
  taskEnrollments: 'catalog.open_tasks.enrollments',
  enrollProgram: 'catalog.open_programs.enroll',
  programEnrollments: 'catalog.open_programs.enrollments',
  enrollCourse: 'catalog.open_courses.enroll',
  courseEnrollments: 'catalog.open_courses.enrollments',
} as const;

/** An id (digits, within the ids' range) or the enrollment profile's uuid: both name the item (docs/learner.md). */
const IsIdOrUuid = (field: string) =>
  documented(
    { type: 'string', pattern: '^([1-9][0-9]{0,9}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$', description: 'the id or the uuid of the item' },
    ValidateBy({
      name: 'isIdOrUuid',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && (UUID.test(value) || (/^[1-9]\d{0,9}$/.test(value) && Number(value) <= MAX_ID)),
        defaultMessage: () => `${field} must be the id or the uuid of the item`,
      },
    }),
  );

export class OpenTaskParams {
  @IsIdOrUuid('open_task_id')
  open_task_id: string;
}

export class OpenCourseParams {
  @IsIdOrUuid('open_course_id')
  open_course_id: string;
}

export class OpenProgramParams {
  @IsIdOrUuid('open_program_id')
  open_program_id: string;
}

/** The caller's enrollments on an open item: learning item records (course enrollments of a program, or the course or task enrollment). */
export const OPEN_ENROLLMENT_SCHEMA: JsonSchema = LEARNING_ITEM_SCHEMA;
