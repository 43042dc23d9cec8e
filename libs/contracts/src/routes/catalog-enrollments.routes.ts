import { IdParams } from '../common/query.js';
import {
  CourseEnrollmentsParams,
  CreateEnrollmentsBody,
  ENROLLMENT_LEARNER_SCHEMA,
  ENROLLMENT_SCHEMA,
  ENROLLMENT_SUBJECTS as S,
  ListEnrollmentsQuery,
  SKIPPED_ENROLLMENT_SCHEMA,
  UpdateEnrollmentBody,
} from '../catalog/enrollments.contract.js';
import { defineRoute } from './route.js';

const enrollments = { kind: 'envelope', key: 'enrollments', item: ENROLLMENT_SCHEMA, linked: { learners: ENROLLMENT_LEARNER_SCHEMA } } as const;

/** Course enrollments, on the paths the original service's clients use (issue 8; docs/catalog.md "Enrollments"). */
export const CATALOG_ENROLLMENT_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/author/course_templates/:course_template_id/enrollments', subject: S.list, status: 200, paged: true,
    summary: "List a course's enrollments (newest first) with their learners in linked.learners; state filters by state (overdue, removed too), search by the learner's name",
    params: CourseEnrollmentsParams, query: ListEnrollmentsQuery, response: enrollments,
  }),
  defineRoute({
    method: 'POST', path: '/api/author/course_templates/:course_template_id/enrollments', subject: S.create, status: 201,
    summary: 'Enroll users, or groups (their learners now and later); a user enrolled already is skipped and reported in `skipped`; 400 for an unknown user or group, or an archived or unpublished course',
    params: CourseEnrollmentsParams, body: CreateEnrollmentsBody, response: { ...enrollments, also: { skipped: SKIPPED_ENROLLMENT_SCHEMA } },
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: '/api/author/enrollments/:id', subject: S.update, status: 200,
    summary: 'Change an enrollment: end_at, expires_at, score, state (assigned → active → complete); completed_at completes it',
    params: IdParams, body: UpdateEnrollmentBody, response: enrollments,
  }),
  defineRoute({
    method: 'DELETE', path: '/api/author/enrollments/:id', subject: S.delete, status: 204,
    summary: 'Remove an enrollment; it stays in the history (state=removed)', params: IdParams, response: { kind: 'empty' },
  }),
];
