import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import { MAX_ID, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { DatedListQuery } from './live-courses.contract.js';
import { NullAllowed } from '../common/documented.js';

export const REGISTRATION_SUBJECTS = {
  list: 'scheduling.registrations.list',
  register: 'scheduling.registrations.register',
  update: 'scheduling.registrations.update',
  unregister: 'scheduling.registrations.unregister',
  waitlist: 'scheduling.registrations.waitlist',
} as const;

/** Registration events (data: RegistrationEventData), recorded through the outbox. */
export const REGISTRATION_CREATED_EVENT = 'scheduling.registration.created';
export const REGISTRATION_UPDATED_EVENT = 'scheduling.registration.updated';
export const REGISTRATION_DELETED_EVENT = 'scheduling.registration.deleted';
/** A waitlisted user took a freed seat; the notification goes to `user_id`. */
export const WAITLIST_PROMOTED_EVENT = 'scheduling.waitlist.promoted';
export const WAITLIST_JOINED_EVENT = 'scheduling.waitlist.joined';

export interface RegistrationEventData {
  live_course_id: number;
  session_id: number;
  registration_id: number;
  user_id: number;
}

/** `:live_course_session_id` of the registration routes. */
export class SessionRegistrationsParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  live_course_session_id: number;
}

export class RegistrationParams extends SessionRegistrationsParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

export class ListRegistrationsQuery extends DatedListQuery {}

export class RegisterBody {
  @IsDefined() @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;

  /** Moves a waitlisted user into a free seat (400 when the user is not on the waitlist). */
  @IsOptional() @IsBoolean()
  from_waitlist?: boolean;
}

export class WaitlistBody {
  @IsDefined() @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;
}

export class RegistrationChanges {
  /** A time checks the user in; null clears the check-in. The key is required. */
  @NullAllowed() @IsDefined() @IsTimestamp({ message: 'marked_complete_at must be an RFC 3339 date-time or null' })
  marked_complete_at: string | null;
}

export class UpdateRegistrationBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => RegistrationChanges)
  live_course_session_registration: RegistrationChanges;
}

export interface RegistrationView {
  id: string;
  live_course_session_id: string;
  user_id: string;
  name: string;
  avatar_url: string | null;
  marked_complete_at: string | null;
  start_at: string | null;
  created_at: string;
  updated_at: string;
  /** Lists that ask for deleted records only (`asksForDeleted`). */
  deleted_at?: string | null;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const REGISTRATION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'live_course_session_id', 'user_id', 'name', 'avatar_url', 'marked_complete_at', 'start_at', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    live_course_session_id: { type: 'string' },
    user_id: { type: 'string' },
    name: { type: 'string' },
    avatar_url: nullable('string'),
    marked_complete_at: { ...nullable('string', { format: 'date-time' }), description: 'the check-in' },
    start_at: { ...nullable('string', { format: 'date-time' }), description: "the session's start" },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    deleted_at: { ...nullable('string', { format: 'date-time' }), description: 'set once unregistered; only when deleted records were asked for' },
  },
};
