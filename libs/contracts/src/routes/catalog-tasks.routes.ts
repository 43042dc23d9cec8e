import { IdParams } from '../common/query.js';
import { CreateTasksBody, ListTasksQuery, TASK_SCHEMA, TASK_SUBJECTS as S, UpdateTaskBody } from '../catalog/tasks.contract.js';
import { defineRoute } from './route.js';

const tasks = { kind: 'envelope', key: 'tasks', item: TASK_SCHEMA } as const;
const PATH = '/api/author/tasks';

/** Spec "Tasks (author)": clone is the spec's; list, show, create, update and delete are what authors need besides. */
export const CATALOG_TASK_ROUTES = [
  defineRoute({
    method: 'GET', path: PATH, subject: S.list, status: 200, paged: true,
    summary: 'List tasks (checkpoints), newest first, optionally by title (case-insensitive substring)', query: ListTasksQuery, response: tasks,
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:id`, subject: S.show, status: 200,
    summary: 'Show a task', params: IdParams, response: tasks,
  }),
  defineRoute({
    method: 'POST', path: PATH, subject: S.create, status: 201,
    summary: 'Create tasks (all or nothing); the caller is their author', body: CreateTasksBody, response: tasks,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${PATH}/:id`, subject: S.update, status: 200, errors: [409],
    summary: "Change a task (its author or an administrator)", params: IdParams, body: UpdateTaskBody, response: tasks,
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:id`, subject: S.delete, status: 204, errors: [409],
    summary: 'Delete a task (its author or an administrator)', params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/clone`, subject: S.clone, status: 200,
    summary: 'Copy a task: a new id, unpublished, no enrollments, the same body and settings; the caller authors the copy',
    params: IdParams, response: tasks,
  }),
];
