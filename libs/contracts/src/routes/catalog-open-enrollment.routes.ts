import { OPEN_ENROLLMENT_SCHEMA, OPEN_ENROLLMENT_SUBJECTS as S, OpenCourseParams, OpenProgramParams, OpenTaskParams } from '../catalog/open-enrollment.contract.js';
import { defineRoute } from './route.js';

const enrollments = { kind: 'envelope', key: 'enrollments', item: OPEN_ENROLLMENT_SCHEMA } as const;

/** Learners enroll themselves in open courses, tasks and programs (issue 15; docs/learner.md). */
export const CATALOG_OPEN_ENROLLMENT_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/learner/open_tasks/:open_task_id/enrollment', subject: S.enrollTask, status: 201, errors: [409],
    summary: 'Enrolls the caller in a published task open to enrollment (by id or uuid), optional; 400 when it is not open or the caller is enrolled already, 409 when a concurrent removal hid their enrollment',
    params: OpenTaskParams, response: enrollments,
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/open_tasks/:open_task_id/enrollment', subject: S.taskEnrollments, status: 200,
    summary: "The caller's enrollment in the task (an empty list when none)", params: OpenTaskParams, response: enrollments,
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/open_programs/:open_program_id/enrollment', subject: S.enrollProgram, status: 201, errors: [409],
    summary: "Enrolls the caller in every published course of a published program open to enrollment (by id or the enroll_url's uuid), optional; 400 when it is not open or the caller is enrolled already, 409 when a concurrent removal hid their enrollment",
    params: OpenProgramParams, response: enrollments,
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/open_programs/:open_program_id/enrollment', subject: S.programEnrollments, status: 200,
    summary: "The caller's course enrollments made through the program", params: OpenProgramParams, response: enrollments,
  }),
  // A course's enroll_url (not in the spec, which names open tasks and programs only; docs/learner.md).
  defineRoute({
    method: 'POST', path: '/api/learner/open_courses/:open_course_id/enrollment', subject: S.enrollCourse, status: 201, errors: [409],
    summary: "Enrolls the caller in a published course open to enrollment (by id or the enroll_url's uuid), optional; 400 when it is not open or the caller is enrolled already, 409 when a concurrent removal hid their enrollment",
    params: OpenCourseParams, response: enrollments,
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/open_courses/:open_course_id/enrollment', subject: S.courseEnrollments, status: 200,
    summary: "The caller's enrollment in the course (an empty list when none)", params: OpenCourseParams, response: enrollments,
  }),
];
