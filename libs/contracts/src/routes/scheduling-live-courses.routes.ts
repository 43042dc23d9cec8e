import { IdParams } from '../common/query.js';
import {
  CreateLiveCoursesBody,
  EnrollLiveCourseLearnersBody,
  LIVE_COURSE_ENROLLMENT_SCHEMA,
  LIVE_COURSE_LEARNER_SUBJECTS as L,
  LIVE_COURSE_SCHEMA,
  LIVE_COURSE_SUBJECTS as S,
  LiveCourseLearnerParams,
  LiveCourseParams,
  ListLiveCourseLearnersQuery,
  ListLiveCoursesQuery,
  ShowLiveCourseQuery,
  UpdateLiveCourseBody,
} from '../scheduling/live-courses.contract.js';
import { defineRoute } from './route.js';

const liveCourses = { kind: 'envelope', key: 'live_courses', item: LIVE_COURSE_SCHEMA } as const;
const learners = { kind: 'envelope', key: 'learners', item: LIVE_COURSE_ENROLLMENT_SCHEMA } as const;
const PATH = '/api/author/live_courses';

/** Spec "Live courses (author)": paths not shown there, chosen as docs/scheduling.md records. */
export const SCHEDULING_LIVE_COURSE_ROUTES = [
  defineRoute({
    method: 'GET', path: PATH, subject: S.list, status: 200, paged: true,
    summary: 'List live courses (newest first): title search, includes[], date filters, deleted ones on request',
    query: ListLiveCoursesQuery, response: liveCourses,
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:id`, subject: S.show, status: 200,
    summary: 'Show a live course with its expiration and enrollment-profile settings; 404 once deleted',
    params: IdParams, query: ShowLiveCourseQuery, response: liveCourses,
  }),
  defineRoute({
    method: 'POST', path: PATH, subject: S.create, status: 201,
    summary: 'Create live courses (all or nothing); the caller is the author', body: CreateLiveCoursesBody, response: liveCourses,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${PATH}/:id`, subject: S.update, status: 200,
    summary: 'Change a live course', params: IdParams, body: UpdateLiveCourseBody, response: liveCourses,
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:id`, subject: S.delete, status: 204,
    summary: 'Delete (soft) a live course: it appears only in deleted listings', params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:live_course_id/learners`, subject: L.list, status: 200, paged: true,
    summary: "List a live course's enrollments, oldest first", params: LiveCourseParams, query: ListLiveCourseLearnersQuery, response: learners,
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:live_course_id/learners`, subject: L.enroll, status: 201,
    summary: 'Enroll learners by user id (all or nothing); 400 for an unknown or deleted user or one enrolled already',
    params: LiveCourseParams, body: EnrollLiveCourseLearnersBody, response: learners,
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:live_course_id/learners/:live_course_enrollment_id`, subject: L.remove, status: 204,
    summary: 'Remove an enrollment, with its session registrations and waitlist places', params: LiveCourseLearnerParams, response: { kind: 'empty' },
  }),
];
