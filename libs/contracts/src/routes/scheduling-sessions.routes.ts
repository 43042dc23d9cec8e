import { LiveCourseParams } from '../scheduling/live-courses.contract.js';
import { CreateSessionsBody, ListSessionsQuery, SESSION_SCHEMA, SESSION_SUBJECTS as S, SessionParams, UpdateSessionBody } from '../scheduling/sessions.contract.js';
import { defineRoute } from './route.js';

const sessions = { kind: 'envelope', key: 'sessions', item: SESSION_SCHEMA } as const;
const PATH = '/api/author/live_courses/:live_course_id/sessions';

/** Spec "Live course sessions (author)". */
export const SCHEDULING_SESSION_ROUTES = [
  defineRoute({
    method: 'GET', path: PATH, subject: S.list, status: 200, paged: true, errors: [304],
    summary: "List a live course's sessions (earliest first), or with parent_id the parts of one; date filters, deleted flags",
    params: LiveCourseParams, query: ListSessionsQuery, response: sessions,
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:id`, subject: S.show, status: 200, errors: [304],
    summary: 'Show a session or part with its counts and instructors', params: SessionParams, response: sessions,
  }),
  defineRoute({
    method: 'POST', path: PATH, subject: S.create, status: 201,
    summary: 'Create sessions (all or nothing), or parts of parent_id; timezone places times given without an offset',
    params: LiveCourseParams, body: CreateSessionsBody, response: sessions,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${PATH}/:id`, subject: S.update, status: 200,
    summary: 'Change a session (at least one field); raised seats promote the waitlist', params: SessionParams, body: UpdateSessionBody, response: sessions,
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:id`, subject: S.delete, status: 204,
    summary: 'Delete (soft) a session with its parts', params: SessionParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/conclude`, subject: S.conclude, status: 200,
    summary: 'Conclude a started session (irreversible): absent registrations are unregistered, present ones complete their enrollment; 400 when concluded or not started',
    params: SessionParams, response: sessions,
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/publish`, subject: S.publish, status: 200,
    summary: 'Publish a session, notifying its registered users once; 400 for a part, a concluded or unscheduled session',
    params: SessionParams, response: sessions,
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/clone`, subject: S.clone, status: 201,
    summary: 'Copy a session with its parts and web conference, without registrations; 400 for a part of a concluded session', params: SessionParams, response: sessions,
  }),
];
