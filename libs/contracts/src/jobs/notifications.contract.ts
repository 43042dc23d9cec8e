import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';

/**
 * Notification delivery (docs/jobs.md, "Notification delivery"): jobs-worker turns domain events into
 * messages to their recipients on the channels the account's notification types enable, and records each
 * (event, recipient, channel) as a delivery in the jobs schema.
 */
export const NOTIFICATION_SUBJECTS = {
  welcome: 'jobs.notifications.welcome',
  deliveries: 'jobs.notification_deliveries.list',
} as const;

/** The durable consumer every jobs-worker replica shares for notifications (apart from the job queue). */
export const NOTIFICATIONS_CONSUMER = 'jobs-worker-notifications';

/** Recorded by jobs when the welcome message of a user is asked for (data: WelcomeRequestedData). */
export const WELCOME_REQUESTED_EVENT = 'jobs.notification.welcome_requested';

/** The notification type of the welcome message (identity's catalogue). */
export const WELCOME_NOTIFICATION_TYPE = 'welcome';

/** The channels jobs-worker delivers on (in_app has no inbox to deliver to yet). */
export const DELIVERY_CHANNELS = ['email', 'slack'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/**
 * `pending`: waiting for its (next) attempt; `sending`: claimed by a worker that is sending it; then one of
 * `sent`, `failed` (gave up, or a permanent refusal) or `skipped` (channel disabled or not configured, no address).
 */
export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const MAX_INT = 2_147_483_647;

/** `:user_id` of the welcome route. */
export class WelcomeParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;
}

export class WelcomeRequestedData {
  @IsInt() @Min(1) @Max(MAX_INT)
  user_id: number;

  @IsInt() @Min(0) @Max(MAX_INT)
  requested_by: number;
}

/** `GET /api/admin/notification_deliveries`: newest first, filtered by any of these. */
export class ListNotificationDeliveriesQuery extends PageQuery {
  @IsOptional() @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  @IsOptional() @IsIn(DELIVERY_CHANNELS)
  channel?: DeliveryChannel;

  @IsOptional() @IsString() @MaxLength(64) @Matches(/^[a-z][a-z0-9_]*$/, { message: 'notification_type must be a notification type key such as course_published' })
  notification_type?: string;

  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  user_id?: number;

  @IsOptional() @IsUUID()
  event_id?: string;

  /** Deliveries created at or after this moment (RFC 3339). */
  @IsOptional() @IsTimestamp()
  since?: string;
}

export interface NotificationDeliveryView {
  id: number;
  event_id: string;
  event_type: string;
  notification_type: string;
  user_id: number;
  channel: DeliveryChannel;
  status: DeliveryStatus;
  /** The address it went to (e-mail), or null. */
  address: string | null;
  subject: string;
  /** Why it was skipped or failed; for a sent delivery with attempts > 1, the last failed attempt's error. */
  error: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
}

// Payloads of the events the worker consumes, as it validates them (the producers' interfaces are the contract).
export class RecipientsPayload {
  @IsArray() @ArrayMaxSize(10_000) @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_INT, { each: true })
  recipients: number[];
}

export class CoursePublishedPayload extends RecipientsPayload {
  @IsInt() @Min(1) @Max(MAX_INT)
  id: number;

  @IsString() @MaxLength(10_000)
  title: string;

  @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(10_000)
  notify_message: string | null;

  @ValidateIf((_, v) => v !== null) @IsString()
  notify_filter: string | null;
}

export class PublishRecipientsPayload extends RecipientsPayload {
  @IsInt() @Min(1) @Max(MAX_INT)
  course_template_id: number;

  @IsOptional() @IsString() @MaxLength(10_000)
  title?: string;

  @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(10_000)
  notify_message: string | null;
}

export class SessionPublishedPayload extends RecipientsPayload {
  @IsInt() @Min(1) @Max(MAX_INT)
  id: number;

  @IsInt() @Min(1) @Max(MAX_INT)
  live_course_id: number;
}

export class UserEventPayload {
  @IsInt() @Min(1) @Max(MAX_INT)
  user_id: number;
}

export class WaitlistPromotedPayload extends UserEventPayload {
  @IsInt() @Min(1) @Max(MAX_INT)
  session_id: number;

  @IsInt() @Min(1) @Max(MAX_INT)
  live_course_id: number;
}

export class LiveCourseAssignedPayload extends UserEventPayload {
  @IsInt() @Min(1) @Max(MAX_INT)
  live_course_id: number;
}

/** `identity.notification_types.settings` (internal): every type's channels as the account set them. */
export const NOTIFICATION_TYPE_SETTINGS_SUBJECT = 'identity.notification_types.settings';

export class NotificationTypeSettingsRequest {
  /** Only these types (all when absent). */
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(64, { each: true })
  types?: string[];
}

export interface NotificationTypeSettingsReply {
  types: Record<string, Partial<Record<string, boolean>>>;
}

export const NOTIFICATION_DELIVERY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'event_id', 'event_type', 'notification_type', 'user_id', 'channel', 'status', 'address', 'subject', 'error', 'attempts', 'created_at', 'updated_at', 'sent_at'],
  properties: {
    id: { type: 'integer' },
    event_id: { type: 'string', description: 'the id of the event (or welcome request) that caused it' },
    event_type: { type: 'string' },
    notification_type: { type: 'string', description: 'the notification type key, e.g. course_published' },
    user_id: { type: 'integer', description: 'the recipient' },
    channel: { type: 'string', enum: [...DELIVERY_CHANNELS] },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    address: { type: ['string', 'null'] },
    subject: { type: 'string' },
    error: { type: ['string', 'null'] },
    attempts: { type: 'integer', minimum: 0 },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    sent_at: { type: ['string', 'null'], format: 'date-time' },
  },
};
