import { IdParams } from '../common/query.js';
import { LOCK_FENCE_HEADER_SPEC, LOCK_GRANT_SCHEMA, LOCK_ID_HEADER_SPEC, LOCK_STATUS_SCHEMA, LOCK_SUBJECTS } from '../locking/locks.contract.js';
import { defineRoute, type RouteDefinition } from './route.js';

function lockRoutes(path: string, noun: string, subjects: (typeof LOCK_SUBJECTS)[keyof typeof LOCK_SUBJECTS]): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET', path, subject: subjects.show, status: 200,
      summary: `Who holds the edit lock on a ${noun} and for how long (404 when none is held)`,
      params: IdParams, response: { kind: 'object', key: 'lock', item: LOCK_STATUS_SCHEMA },
    }),
    defineRoute({
      method: 'POST', path, subject: subjects.acquire, status: 200, errors: [409, 422],
      summary: `Take the edit lock on a ${noun} (the same lock again when the caller holds it; 409 naming the holder otherwise)`,
      params: IdParams, response: { kind: 'object', key: 'lock', item: LOCK_GRANT_SCHEMA },
    }),
    defineRoute({
      method: 'PUT', path, subject: subjects.renew, status: 204, errors: [409, 422], headers: [LOCK_ID_HEADER_SPEC],
      summary: `Renew the caller's edit lock on a ${noun}: its lifetime starts again`,
      params: IdParams, response: { kind: 'empty' },
    }),
    defineRoute({
      method: 'DELETE', path, subject: subjects.release, status: 204, errors: [409, 422], headers: [LOCK_ID_HEADER_SPEC],
      summary: `Release the caller's edit lock on a ${noun}`,
      params: IdParams, response: { kind: 'empty' },
    }),
  ];
}

/** Spec "Locks (author)". */
export const LOCKING_LOCK_ROUTES = [
  ...lockRoutes('/api/author/course_templates/:id/lock', 'course template', LOCK_SUBJECTS.courseTemplate),
  ...lockRoutes('/api/author/tasks/:id/lock', 'task', LOCK_SUBJECTS.task),
];

/** Writes to one course template or task (its fields, slides, authors, publication): what an edit lock fences. */
const isAuthoringWrite = (route: RouteDefinition) => route.path.includes(':') && !route.methods.includes('GET') && !route.path.endsWith('/clone');

/**
 * Catalog's authoring writes take `X-Lock-Id` (optional) and may answer 409 (locked by someone else, or a
 * lock that is no longer the live one) or 422 (a malformed lock id): declared here, in one place, so the
 * catalog's route files stay the catalog's.
 */
export function fencedByLocks(routes: RouteDefinition[]): RouteDefinition[] {
  return routes.map((route) =>
    isAuthoringWrite(route)
      ? { ...route, headers: [...(route.headers ?? []), LOCK_FENCE_HEADER_SPEC], errors: [...new Set([...(route.errors ?? []), 409, 422])] }
      : route,
  );
}
