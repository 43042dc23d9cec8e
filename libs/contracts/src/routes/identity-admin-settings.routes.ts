import { IdParams } from '../common/query.js';
import { CRM_ACCOUNT_SCHEMA, CRM_ACCOUNT_SUBJECTS } from '../identity/crm-accounts.contract.js';
import { IMPORT_PROFILE_SCHEMA, IMPORT_PROFILE_SUBJECTS, UpdateImportProfileBody } from '../identity/import-profile.contract.js';
import { NOTIFICATION_TYPE_SCHEMA, NOTIFICATION_TYPE_SUBJECTS, NotificationTypeParams, UpdateNotificationTypeBody } from '../identity/notification-types.contract.js';
import { defineRoute } from './route.js';

const importProfile = { kind: 'object', item: IMPORT_PROFILE_SCHEMA } as const;
const notificationTypes = { kind: 'envelope', key: 'notification_types', item: NOTIFICATION_TYPE_SCHEMA } as const;

/** Administrator settings of an account: import profile, notification types, CRM account. */
export const IDENTITY_ADMIN_SETTINGS_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/admin/import_profile', subject: IMPORT_PROFILE_SUBJECTS.show, status: 200,
    summary: "The account's scheduled CSV import profile (created with defaults on first access); never the password",
    response: importProfile,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: '/api/admin/import_profile', subject: IMPORT_PROFILE_SUBJECTS.update, status: 200,
    summary: 'Change the import profile: absent fields keep their value; the password is stored encrypted',
    body: UpdateImportProfileBody, response: importProfile,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/import_profile/file', subject: IMPORT_PROFILE_SUBJECTS.file, status: 200,
    summary: 'A CSV template of the configured columns: one header row, columns in position order',
    response: { kind: 'file', contentType: 'text/csv' },
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/notification_types', subject: NOTIFICATION_TYPE_SUBJECTS.list, status: 200,
    summary: 'All notification types the caller may configure, with the channels each offers and whether they are enabled',
    response: notificationTypes,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/notification_types/:id', subject: NOTIFICATION_TYPE_SUBJECTS.show, status: 200,
    summary: 'One notification type by key', params: NotificationTypeParams, response: notificationTypes,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: '/api/admin/notification_types/:id', subject: NOTIFICATION_TYPE_SUBJECTS.update, status: 200,
    summary: "Enable or disable a type's channels; a channel the type does not offer, or a non-boolean, is a 422",
    params: NotificationTypeParams, body: UpdateNotificationTypeBody, response: notificationTypes, errors: [422], invalidStatus: 422,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/crm_accounts/:id', subject: CRM_ACCOUNT_SUBJECTS.show, status: 200,
    summary: "The caller's account as a CRM account (`crm_account` with `name`); any other id is a 404",
    params: IdParams, response: { kind: 'object', key: 'crm_account', item: CRM_ACCOUNT_SCHEMA },
  }),
];
