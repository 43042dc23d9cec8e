import { IdParams } from '../common/query.js';
import {
  API_TOKEN_SCHEMA,
  API_TOKEN_SUBJECTS,
  CREATED_API_TOKEN_SCHEMA,
  CreateApiTokenBody,
  ListApiTokensQuery,
} from '../identity/api-tokens.contract.js';
import {
  CreateCustomFieldsBody,
  CUSTOM_FIELD_SCHEMA,
  CUSTOM_FIELD_SUBJECTS as S,
  FieldIncludesQuery,
  UpdateCustomFieldBody,
  USER_FIELD_SCHEMA,
} from '../identity/custom-fields.contract.js';
import { defineRoute } from './route.js';

const customFields = { kind: 'envelope', key: 'custom_fields', item: CUSTOM_FIELD_SCHEMA } as const;

export const IDENTITY_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/admin/api_tokens', subject: API_TOKEN_SUBJECTS.create, status: 201,
    summary: 'Issue an API token for a user of the account (id or uid:<uid>); the secret is answered only here',
    body: CreateApiTokenBody, response: { kind: 'envelope', key: 'api_tokens', item: CREATED_API_TOKEN_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/api_tokens', subject: API_TOKEN_SUBJECTS.list, status: 200, paged: true,
    summary: "List the account's live API tokens (never their secrets), optionally of one user",
    query: ListApiTokensQuery, response: { kind: 'envelope', key: 'api_tokens', item: API_TOKEN_SCHEMA },
  }),
  defineRoute({
    method: 'DELETE', path: '/api/admin/api_tokens/:id', subject: API_TOKEN_SUBJECTS.revoke, status: 204,
    summary: 'Revoke an API token; it is refused from the next request on', params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'GET', path: '/api/author/custom_fields', subject: S.list, status: 200, paged: true,
    summary: 'List custom fields', query: FieldIncludesQuery, response: customFields,
  }),
  defineRoute({
    method: 'GET', path: '/api/author/custom_fields/:id', subject: S.show, status: 200,
    summary: 'Show a custom field', params: IdParams, response: customFields,
  }),
  defineRoute({
    method: 'POST', path: '/api/author/custom_fields', subject: S.create, status: 201,
    summary: 'Create custom fields', body: CreateCustomFieldsBody, response: customFields,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: '/api/author/custom_fields/:id', subject: S.update, status: 200,
    summary: 'Rename a custom field', params: IdParams, body: UpdateCustomFieldBody, response: customFields,
  }),
  defineRoute({
    method: 'DELETE', path: '/api/author/custom_fields/:id', subject: S.delete, status: 200,
    summary: 'Delete a custom field; answers the deleted record', params: IdParams, response: customFields,
  }),
  defineRoute({
    method: 'GET', path: '/api/author/user_fields', subject: S.listUserFields, status: 200, paged: true,
    summary: 'List user fields: built-in ones and custom fields', query: FieldIncludesQuery,
    response: { kind: 'envelope', key: 'user_fields', item: USER_FIELD_SCHEMA },
  }),
];
