import { IdParams, MAX_PER_PAGE } from '../common/query.js';
import { CLONE_OBJECT_SCHEMA, CLONE_OBJECT_SUBJECTS, CreateCloneObjectsBody, ListCloneObjectsQuery } from '../jobs/clone-objects.contract.js';
import { defineRoute } from './route.js';

const clones = { kind: 'envelope', key: 'clone_objects', item: CLONE_OBJECT_SCHEMA } as const;

/** Sub-account clones (docs/jobs.md "Sub-account clones"): jobs records them, jobs-worker runs each as a saga. */
export const JOBS_CLONE_OBJECT_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/admin/clone_objects', subject: CLONE_OBJECT_SUBJECTS.list, status: 200,
    summary: "The account's clone objects, newest first, with their state; 1,000 a page unless `per_page` says otherwise",
    query: ListCloneObjectsQuery, response: clones, paged: true, defaultPerPage: MAX_PER_PAGE,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/clone_objects/:id', subject: CLONE_OBJECT_SUBJECTS.show, status: 200,
    summary: 'One clone object with its state, destination and error messages', params: IdParams, response: clones,
  }),
  defineRoute({
    method: 'POST', path: '/api/admin/clone_objects', subject: CLONE_OBJECT_SUBJECTS.create, status: 201,
    summary: 'Clone sub-accounts: one clone job per element, each `pending` (all source_type values alike; 409 when a subdomain is taken or a clone of the source is still running)',
    body: CreateCloneObjectsBody, response: clones, errors: [409],
  }),
];
