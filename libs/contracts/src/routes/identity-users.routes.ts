import {
  AUTHOR_USER_SCHEMA,
  AuthorListUsersQuery,
  CreateUsersBody,
  DeleteUserQuery,
  ListUsersQuery,
  SetUserRolesBody,
  UpdateUserBody,
  USER_SCHEMA,
  USER_SUBJECTS as S,
  USER_SUMMARY_SCHEMA,
  UserRefParams,
  UserSummaryQuery,
} from '../identity/users.contract.js';
import { defineRoute } from './route.js';

const users = { kind: 'envelope', key: 'users', item: USER_SCHEMA, linked: {} } as const;

/** Users (admin): the spec's create, delete, summary and hide, plus the show, list and update every administrator expects; and the authors' list. */
export const IDENTITY_USER_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/admin/users', subject: S.create, status: 200,
    summary: 'Create a user from the first element of `users` (extra elements are ignored); new users are learners',
    body: CreateUsersBody, response: users,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/users', subject: S.list, status: 200, paged: true,
    summary: 'List users; `search` matches name, uid or e-mail; deleted users only with `with_deleted` / `only_deleted`',
    query: ListUsersQuery, response: users,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/users/:id', subject: S.show, status: 200,
    summary: 'Show a user by id or uid:<uid> (a deleted user shows with its deleted_at)', params: UserRefParams, response: users,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: '/api/admin/users/:id', subject: S.update, status: 200,
    summary: 'Change attributes of a live user (uid to a free one); `roles` cannot be set here',
    params: UserRefParams, body: UpdateUserBody, response: users,
  }),
  defineRoute({
    method: 'DELETE', path: '/api/admin/users/:id', subject: S.delete, status: 204,
    summary: 'Delete (soft) a user by id or uid:<uid>; `async=true` answers at once and a worker finishes; deleting yourself is a 403',
    params: UserRefParams, query: DeleteUserQuery, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'PUT', path: '/api/admin/users/:id/roles', subject: S.setRoles, status: 200,
    summary: "Replace a user's roles (admin, author, learner, support); you cannot drop your own admin role",
    params: UserRefParams, body: SetUserRolesBody, response: users,
  }),
  defineRoute({
    method: 'POST', path: '/api/admin/users/:id/hide', subject: S.hide, status: 204,
    summary: 'Hide a deleted user from every answer; 400 for an active user, 403 for yourself',
    params: UserRefParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/users/:id/summary', subject: S.summary, status: 200,
    summary: "Counts of the user's completions whose completed_at falls in [start_date, end_date] (UTC days, both optional)",
    params: UserRefParams, query: UserSummaryQuery, response: { kind: 'object', key: 'summary', item: USER_SUMMARY_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/author/users', subject: S.authorList, status: 200, paged: true,
    summary: "List the account's live users to enroll them (id, uid, name, email, avatar_url, roles); `search` as in the admin list",
    query: AuthorListUsersQuery, response: { kind: 'envelope', key: 'users', item: AUTHOR_USER_SCHEMA },
  }),
];
