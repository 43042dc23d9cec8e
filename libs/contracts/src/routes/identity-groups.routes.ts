import { IdParams } from '../common/query.js';
import {
  AddGroupLearnersBody,
  CreateGroupsBody,
  GROUP_LEARNER_SCHEMA,
  GROUP_SCHEMA,
  GROUP_SUBJECTS as S,
  GroupLearnerParams,
  GroupParams,
  ListGroupLearnersQuery,
  ListGroupsQuery,
  UpdateGroupBody,
} from '../identity/groups.contract.js';
import { defineRoute } from './route.js';

const groups = { kind: 'envelope', key: 'groups', item: GROUP_SCHEMA } as const;
const learners = { kind: 'envelope', key: 'learners', item: GROUP_LEARNER_SCHEMA, linked: { groups: GROUP_SCHEMA } } as const;

/** Groups (not in the spec; what an author expects) and group learners (spec "Group learners (author)"). */
export const IDENTITY_GROUP_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/author/groups', subject: S.list, status: 200, paged: true,
    summary: 'List groups, optionally by name (case-insensitive substring) and type', query: ListGroupsQuery, response: groups,
  }),
  defineRoute({
    method: 'GET', path: '/api/author/groups/:id', subject: S.show, status: 200,
    summary: 'Show a group', params: IdParams, response: groups,
  }),
  defineRoute({
    method: 'POST', path: '/api/author/groups', subject: S.create, status: 201,
    summary: 'Create groups (all or nothing); a parent must be a group of the account, names are unique among siblings',
    body: CreateGroupsBody, response: groups,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: '/api/author/groups/:id', subject: S.update, status: 200,
    summary: "Change a group's name, type or parent (no cycles)", params: IdParams, body: UpdateGroupBody, response: groups,
  }),
  defineRoute({
    method: 'DELETE', path: '/api/author/groups/:id', subject: S.delete, status: 204, errors: [409],
    summary: 'Delete a group and its memberships; refused with 409 while it has child groups', params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: '/api/author/groups/:group_id/learners', subject: S.addLearners, status: 201,
    summary: 'Add users to a group (adding a member again changes nothing); answers the named learners',
    params: GroupParams, body: AddGroupLearnersBody, response: learners,
  }),
  defineRoute({
    method: 'GET', path: '/api/author/groups/:group_id/learners', subject: S.listLearners, status: 200, paged: true,
    summary: "List a group's learners, searched by first name, last name, username or e-mail and sorted by name",
    params: GroupParams, query: ListGroupLearnersQuery, response: learners,
  }),
  defineRoute({
    method: 'DELETE', path: '/api/author/groups/:group_id/learners/:id', subject: S.removeLearner, status: 204,
    summary: 'Remove a learner (user id) from a group', params: GroupLearnerParams, response: { kind: 'empty' },
  }),
];
