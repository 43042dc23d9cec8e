import { IsDefined, IsObject, IsString, Matches, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { JsonSchema } from '../routes/route.js';

export const NOTIFICATION_TYPE_SUBJECTS = {
  list: 'identity.notification_types.list',
  show: 'identity.notification_types.show',
  update: 'identity.notification_types.update',
} as const;

/** Recorded through the outbox when an account's channel settings of a type change (data: NotificationTypeEventData). */
export const NOTIFICATION_TYPE_UPDATED_EVENT = 'identity.notification_type.updated';

export const NOTIFICATION_CHANNELS = ['email', 'slack', 'in_app'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export const NOTIFICATION_AUDIENCES = ['learner', 'manager', 'author', 'admin'] as const;
export type NotificationAudience = (typeof NOTIFICATION_AUDIENCES)[number];

/** `:id` of a notification type: its key, e.g. `course_assigned`. */
export class NotificationTypeParams {
  @IsString() @MaxLength(64) @Matches(/^[a-z][a-z0-9_]*$/, { message: 'id must be a notification type key such as course_assigned' })
  id: string;
}

/**
 * Only the shape is checked here (an object); which channels a type offers and that each value is a
 * boolean are the service's checks, answered 422 as the spec wants for an invalid update.
 */
export class UpdateNotificationTypeBody {
  // The schema says what the values are, so forms and bracketed query parameters carry booleans (docs/compatibility.md).
  @IsDefined() @IsObject({ message: 'channels must be an object of channel name to boolean' }) @JSONSchema({ additionalProperties: { type: 'boolean' } })
  channels: Record<string, unknown>;
}

export interface NotificationTypeView {
  id: string;
  audience: NotificationAudience;
  category: string;
  name: string;
  description: string;
  /** Only the channels the type offers; an absent channel is unavailable. */
  channels: Partial<Record<NotificationChannel, boolean>>;
}

export interface NotificationTypeEventData {
  id: string;
  channels: Partial<Record<NotificationChannel, boolean>>;
}

export const NOTIFICATION_TYPE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'audience', 'category', 'name', 'description', 'channels'],
  properties: {
    id: { type: 'string', description: 'key, e.g. course_assigned' },
    audience: { type: 'string', enum: [...NOTIFICATION_AUDIENCES] },
    category: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    channels: {
      type: 'object',
      description: 'channel name to enabled; an absent channel is unavailable for the type',
      properties: Object.fromEntries(NOTIFICATION_CHANNELS.map((c) => [c, { type: 'boolean' }])),
      additionalProperties: false,
    },
  },
};
