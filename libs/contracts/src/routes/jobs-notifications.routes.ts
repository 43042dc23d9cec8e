import { ListNotificationDeliveriesQuery, NOTIFICATION_DELIVERY_SCHEMA, NOTIFICATION_SUBJECTS, WelcomeParams } from '../jobs/notifications.contract.js';
import { defineRoute } from './route.js';

/** Notification delivery (docs/jobs.md, "Notification delivery"). */
export const JOBS_NOTIFICATION_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/author/notifications/:user_id/welcome', subject: NOTIFICATION_SUBJECTS.welcome, status: 202,
    summary: "Send a user the welcome message on the channels the account's `welcome` notification type enables; accepted, delivered by jobs-worker (see GET /api/admin/notification_deliveries); 404 for no such user",
    params: WelcomeParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/notification_deliveries', subject: NOTIFICATION_SUBJECTS.deliveries, status: 200, paged: true,
    summary: 'Notification deliveries of the account, newest first: one per event, recipient and channel, with its status (pending, sending, sent, failed, skipped), error and attempts',
    query: ListNotificationDeliveriesQuery,
    response: { kind: 'envelope', key: 'notification_deliveries', item: NOTIFICATION_DELIVERY_SCHEMA },
  }),
];
