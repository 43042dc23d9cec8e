import {
  ListRegistrationsQuery,
  REGISTRATION_SCHEMA,
  REGISTRATION_SUBJECTS as S,
  RegisterBody,
  RegistrationParams,
  SessionRegistrationsParams,
  UpdateRegistrationBody,
  WaitlistBody,
} from '../scheduling/registrations.contract.js';
import { LIVE_UPDATE_SUBJECTS, SUBSCRIPTION_SCHEMA, SubscriptionParams } from '../scheduling/live-updates.contract.js';
import { defineRoute } from './route.js';

const registrations = { kind: 'envelope', key: 'registrations', item: REGISTRATION_SCHEMA } as const;
const SESSION = '/api/author/live_course_sessions/:live_course_session_id';

/** Spec "Live course session registrations (author)", plus DELETE to unregister. */
export const SCHEDULING_REGISTRATION_ROUTES = [
  defineRoute({
    method: 'GET', path: `${SESSION}/registrations/subscription`, subject: LIVE_UPDATE_SUBJECTS.subscription, status: 200,
    summary: "Live updates of the registrations of the session's live course: a Server-Sent Events stream URL, its channel and a short-lived token (docs/scheduling.md)",
    params: SubscriptionParams, response: { kind: 'envelope', key: 'subscriptions', item: SUBSCRIPTION_SCHEMA }, absoluteUrls: ['subscriptions.url'],
  }),
  defineRoute({
    method: 'GET', path: `${SESSION}/registrations`, subject: S.list, status: 200, paged: true,
    summary: "A session's registrations, oldest first; unregistered ones with only_deleted/with_deleted; date filters",
    params: SessionRegistrationsParams, query: ListRegistrationsQuery, response: registrations,
  }),
  defineRoute({
    method: 'POST', path: `${SESSION}/registrations`, subject: S.register, status: 204,
    summary: 'Register an enrolled user for a seat; 400 for an unknown or unenrolled user, one registered already, or no seat left. from_waitlist=true moves a waitlisted user into a free seat',
    params: SessionRegistrationsParams, body: RegisterBody, response: { kind: 'empty' },
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${SESSION}/registrations/:id`, subject: S.update, status: 200,
    summary: 'Check in (marked_complete_at a time) or clear the check-in (null)',
    params: RegistrationParams, body: UpdateRegistrationBody, response: registrations,
  }),
  defineRoute({
    method: 'DELETE', path: `${SESSION}/registrations/:id`, subject: S.unregister, status: 204,
    summary: 'Unregister (the seat goes to the first waitlisted user)', params: RegistrationParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: `${SESSION}/waitlist_enrollments`, subject: S.waitlist, status: 204,
    summary: 'Put an enrolled user on the waitlist (a free seat is taken at once); 400 when registered or waitlisted already',
    params: SessionRegistrationsParams, body: WaitlistBody, response: { kind: 'empty' },
  }),
];
