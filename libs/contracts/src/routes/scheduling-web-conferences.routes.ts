import { LiveCourseParams } from '../scheduling/live-courses.contract.js';
import { ListWebConferencesQuery, SaveWebConferenceBody, WEB_CONFERENCE_SCHEMA, WEB_CONFERENCE_SUBJECTS as S, WebConferenceParams } from '../scheduling/web-conferences.contract.js';
import { defineRoute } from './route.js';

const conferences = { kind: 'envelope', key: 'web_conferences', item: WEB_CONFERENCE_SCHEMA } as const;
const ONE = '/api/author/live_courses/:live_course_id/sessions/:session_id/web_conference';

/** Spec "Web conferences (author)" (issue 10; docs/scheduling.md). */
export const SCHEDULING_WEB_CONFERENCE_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/author/web_conferences', subject: S.list, status: 200, paged: true,
    summary: "Web conferences of the account's sessions, by live_course_id; default_session=true answers the caller's saved defaults",
    query: ListWebConferencesQuery, response: conferences,
  }),
  defineRoute({
    method: 'GET', path: '/api/author/live_courses/:live_course_id/web_conferences', subject: S.listOfCourse, status: 200, paged: true,
    summary: "A live course's web conferences; default_session=true answers the caller's saved defaults",
    params: LiveCourseParams, query: ListWebConferencesQuery, response: conferences,
  }),
  defineRoute({
    method: 'GET', path: ONE, subject: S.show, status: 200,
    summary: "A session's web conference; 404 when it has none", params: WebConferenceParams, response: conferences,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: ONE, subject: S.save, status: 200, errors: [422], invalidStatus: 422,
    summary: "Sets a session's web conference (made when missing); default_session=true also saves the details as the caller's defaults for new sessions, apply_all=true to every session of the live course; 422 without web_conference, without provider, or without other_provider for Other",
    params: WebConferenceParams, body: SaveWebConferenceBody, response: conferences,
  }),
  defineRoute({
    method: 'DELETE', path: ONE, subject: S.delete, status: 204,
    summary: "Removes a session's web conference; 404 when it has none", params: WebConferenceParams, response: { kind: 'empty' },
  }),
];
