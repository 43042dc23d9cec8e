import { dumpModule } from '@lms/platform';

/** Scheduling's part of the data dump (docs/jobs.md): its tables of the account, every column. */
export const SchedulingDumpModule = dumpModule('scheduling', [
  { model: 'live_courses' },
  { model: 'live_course_enrollments' },
  { model: 'live_course_sessions', table: 'sessions' },
  { model: 'live_course_session_registrations', table: 'registrations' },
  { model: 'live_course_session_waitlist', table: 'waitlist_places' },
  // Meeting details as authors see them; a host key or password is the customer's, as in the API.
  { model: 'web_conferences' },
]);
