import { MOBILE_COURSE_ITEM_SCHEMA, MOBILE_COURSE_SCHEMA, MOBILE_SUBJECTS as S, MOBILE_TASK_ITEM_SCHEMA, MOBILE_TASK_SCHEMA, MobileCoursesQuery, MobileTasksQuery } from '../catalog/mobile.contract.js';
import { IdParams } from '../common/query.js';
import { defineRoute } from './route.js';

/** Mobile learner items (issue 15; docs/learner.md): published courses and tasks with the caller's enrollment, or null. */
export const CATALOG_MOBILE_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/mobile/learner/courses', subject: S.courses, status: 200,
    summary: 'Course items of the given course_template_ids (comma separated or course_template_ids[]), in that order; unknown or unpublished ones are left out',
    query: MobileCoursesQuery, response: { kind: 'envelope', key: 'items', item: MOBILE_COURSE_ITEM_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/mobile/learner/courses/:id', subject: S.course, status: 200,
    summary: "A course item with type 'CourseTemplate'", params: IdParams, response: { kind: 'object', item: MOBILE_COURSE_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/mobile/learner/tasks', subject: S.tasks, status: 200,
    summary: 'Task items of the given task_ids (comma separated or task_ids[]), in that order; unknown or unpublished ones are left out',
    query: MobileTasksQuery, response: { kind: 'envelope', key: 'items', item: MOBILE_TASK_ITEM_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/mobile/learner/tasks/:id', subject: S.task, status: 200,
    summary: "A task item with type 'Task'", params: IdParams, response: { kind: 'object', item: MOBILE_TASK_SCHEMA },
  }),
];
