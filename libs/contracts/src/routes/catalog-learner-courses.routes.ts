import {
  EXTERNAL_INFO_SCHEMA,
  LEARNER_COURSE_SCHEMA,
  LEARNER_COURSE_SUBJECTS as C,
  LEARNING_ITEM_SCHEMA,
  LEARNING_ITEM_SUBJECTS as I,
} from '../catalog/learner-courses.contract.js';
import { RETAIN_QUIZ_SCHEMA } from '../catalog/retain-quizzes.contract.js';
import { IdParams } from '../common/query.js';
import { defineRoute } from './route.js';

const courses = { kind: 'envelope', key: 'courses', item: LEARNER_COURSE_SCHEMA } as const;
const items = { kind: 'envelope', key: 'learning_items', item: LEARNING_ITEM_SCHEMA } as const;
/** Spec, Versioning 2: the learner course list gave way to learning items, and those to the transcript. */
const COURSES_DEPRECATED = { since: '2025-01-01T00:00:00Z', link: '/api/learner/learning_items', rel: 'successor-version' } as const;
/** Their successor (analytics, the transcript) is no endpoint of this API: the link names the notice. */
const ITEMS_DEPRECATED = { since: '2025-01-01T00:00:00Z', link: '/api/docs#deprecations', rel: 'deprecation' } as const;

/** The caller's own courses and learning items (issue 15; docs/learner.md). */
export const CATALOG_LEARNER_COURSE_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/learner/courses', subject: C.list, status: 200, deprecated: COURSES_DEPRECATED,
    summary: "Deprecated: the caller's course enrollments and live trainings (use learning items)", response: courses,
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/courses/:id/preview', subject: C.preview, status: 200,
    summary: "A published course by course template id, with the caller's enrollment in it if any (is_enrolled)", params: IdParams, response: courses,
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/courses/:id', subject: C.show, status: 200,
    summary: "One of the caller's courses by enrollment id; another learner's is a 404", params: IdParams, response: courses,
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/courses/:id/complete', subject: C.complete, status: 200,
    summary: 'Completes the current attempt of the caller\'s course (once; catalog.enrollment.completed); the retain quizzes it schedules in linked.quizzes',
    params: IdParams, response: { ...courses, linked: { quizzes: RETAIN_QUIZ_SCHEMA } },
  }),
  defineRoute({
    method: 'DELETE', path: '/api/learner/courses/:id', subject: C.leave, status: 204,
    summary: 'Leaves an optional course (the enrollment is removed); 400 for a required one', params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/courses/:id/external_info', subject: C.externalInfo, status: 200,
    summary: "What a client needs to run the caller's external (SCORM or third-party) course; 400 for a native course",
    params: IdParams, response: { kind: 'object', key: 'external_info', item: EXTERNAL_INFO_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/learning_items', subject: I.list, status: 200, deprecated: ITEMS_DEPRECATED,
    summary: "Deprecated: the caller's enrollments in courses, tasks and live courses, with the program that brought each", response: items,
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/learning_items/:id', subject: I.show, status: 200, deprecated: ITEMS_DEPRECATED,
    summary: "Deprecated: one of the caller's learning items by enrollment id", params: IdParams, response: items,
  }),
  defineRoute({
    method: 'DELETE', path: '/api/learner/learning_items/:id', subject: I.delete, status: 204, deprecated: ITEMS_DEPRECATED,
    summary: 'Deprecated: leaves an optional item; 400 for a required one', params: IdParams, response: { kind: 'empty' },
  }),
];
