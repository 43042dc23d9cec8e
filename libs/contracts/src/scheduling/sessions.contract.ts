import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsDefined, IsInt, IsObject, IsOptional, Matches, Max, Min, ValidateBy, ValidateIf, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsText } from '../catalog/text.js';
import { NullAllowed } from '../common/documented.js';
import { MAX_ID, QueryInt } from '../common/query.js';
import { asRfc3339, isCalendarDay } from '../common/timestamp.js';
import type { JsonSchema } from '../routes/route.js';
import { DatedListQuery, LiveCourseParams } from './live-courses.contract.js';

export const SESSION_SUBJECTS = {
  list: 'scheduling.sessions.list',
  show: 'scheduling.sessions.show',
  create: 'scheduling.sessions.create',
  update: 'scheduling.sessions.update',
  delete: 'scheduling.sessions.delete',
  conclude: 'scheduling.sessions.conclude',
  publish: 'scheduling.sessions.publish',
  clone: 'scheduling.sessions.clone',
} as const;

/** data: SessionEventData (published: SessionPublishedData). */
export const SESSION_CREATED_EVENT = 'scheduling.session.created';
export const SESSION_UPDATED_EVENT = 'scheduling.session.updated';
export const SESSION_DELETED_EVENT = 'scheduling.session.deleted';
export const SESSION_CONCLUDED_EVENT = 'scheduling.session.concluded';
export const SESSION_PUBLISHED_EVENT = 'scheduling.session.published';
/** The registered users of a publish beyond the first batch (data: SessionPublishRecipientsData). */
export const SESSION_PUBLISH_RECIPIENTS_EVENT = 'scheduling.session.publish_recipients';

/**
 * An RFC 3339 date-time, or one without an offset that the request's `timezone` (else UTC) places; its hours,
 * minutes and seconds those of a clock (no 24:00, no leap second, which `Date` reads as another time or none).
 */
const LOCAL_OR_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?$/i;
const IsSessionTime = (): PropertyDecorator => (target, key) => {
  Transform(({ value }) => asRfc3339(value, 'local'))(target, String(key));
  Matches(LOCAL_OR_OFFSET, { message: '$property must be a date-time (RFC 3339, or without an offset to use timezone)' })(target, key);
  // As IsTimestamp: `2030-02-31` passes the format, and `new Date` would read it as March 3rd.
  ValidateBy({ name: 'isCalendarDay', validator: { validate: isCalendarDay, defaultMessage: () => `${String(key)} names a day the calendar does not have` } })(target, key);
};

/** Names, not offsets: `Intl` also takes `+01:00`, which the time zone database does not name. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/;
/** ICU's canonical spellings: the common case, answered without building a formatter. */
const CANONICAL_ZONES = new Set(['UTC', ...Intl.supportedValuesOf('timeZone')]);

/**
 * A name the time zone database knows, canonical or alias: `Intl.supportedValuesOf` lists only ICU's
 * canonical spellings, which are older than the database's (`Asia/Calcutta`, not `Asia/Kolkata`; no `Etc/UTC`).
 * Any other name is asked of `Intl` each time, not remembered: it takes names in any letter case, so a
 * memo of what passed could be grown without end.
 */
export function isTimeZone(name: unknown): boolean {
  if (typeof name !== 'string' || name.length > 64 || !ZONE_NAME.test(name)) return false;
  if (CANONICAL_ZONES.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const IsTimeZone = (): PropertyDecorator => (target, key) => {
  JSONSchema({ type: 'string', description: 'a name of the IANA time zone database', examples: ['Europe/Paris', 'Asia/Kolkata', 'UTC'] })(target, String(key));
  ValidateBy({ name: 'isTimeZone', validator: { validate: isTimeZone, defaultMessage: () => '$property must be an IANA time zone name such as Europe/Paris' } })(target, key);
};

/** The spec's SessionRequest, plus `instructor_ids` (users of the account who teach the session). */
export class SessionRequest {
  @IsOptional() @IsSessionTime()
  start_at?: string | null;

  @IsOptional() @IsSessionTime()
  end_at?: string | null;

  @IsOptional() @IsText(1000)
  location?: string | null;

  @IsOptional() @IsInt() @Min(0) @Max(100_000)
  seats?: number | null;

  @IsOptional() @IsText(20_000)
  notes?: string | null;

  @IsOptional() @IsTimeZone()
  timezone?: string;

  /** Absent leaves them as they are; null is refused, as the column is a list (`[]` for none). */
  @ValidateIf((_, value) => value !== undefined) @IsArray() @ArrayMaxSize(50) @ArrayUnique() @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true })
  instructor_ids?: number[];
}

export class CreateSessionsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => SessionRequest)
  sessions: SessionRequest[];

  /** The session the new ones are parts of; null (as a session shows it) or absent: none. */
  @NullAllowed() @IsOptional() @IsInt() @Min(1) @Max(MAX_ID)
  parent_id?: number | null;

  @IsOptional() @IsTimeZone()
  timezone?: string;
}

export class UpdateSessionBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => SessionRequest)
  session: SessionRequest;

  @IsOptional() @IsTimeZone()
  timezone?: string;
}

export class ListSessionsQuery extends DatedListQuery {
  /** Only the parts of this session; without it, the course's sessions (not their parts). */
  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  parent_id?: number;
}

export class SessionParams extends LiveCourseParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

export interface InstructorView {
  id: number;
  name: string;
  email: string | null;
  avatar_url: string | null;
}

export interface SessionView {
  id: number;
  start_at: string | null;
  end_at: string | null;
  location: string | null;
  seats: number | null;
  registered_count: number;
  present_count: number;
  parts_count: number;
  parent_id: number | null;
  notes: string | null;
  live_course_id: number;
  concluded_at: string | null;
  published_at: string | null;
  timezone: string | null;
  enroll_url: string;
  has_web_conference: boolean;
  instuctors: InstructorView[];
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
}

export interface SessionEventData {
  id: number;
  live_course_id: number;
  parent_id: number | null;
}

export interface SessionPublishedData extends SessionEventData {
  /** User ids of the session's registered users, to notify: the first PUBLISH_RECIPIENTS_BATCH of them; the rest follow in `scheduling.session.publish_recipients`. */
  recipients: number[];
  recipients_count: number;
}

export interface SessionPublishRecipientsData {
  id: number;
  live_course_id: number;
  /** 2 for the recipients after the first batch, and so on. */
  batch: number;
  recipients: number[];
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'start_at', 'end_at', 'location', 'seats', 'registered_count', 'present_count', 'parts_count', 'parent_id', 'notes', 'live_course_id', 'concluded_at', 'enroll_url', 'has_web_conference', 'instuctors', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    start_at: nullable('string', { format: 'date-time' }),
    end_at: nullable('string', { format: 'date-time' }),
    location: nullable('string'),
    seats: { ...nullable('integer'), description: 'enrollment cap; null is no cap' },
    registered_count: { type: 'integer' },
    present_count: { type: 'integer', description: 'registrations checked in' },
    parts_count: { type: 'integer' },
    parent_id: { ...nullable('integer'), description: 'the session this is a part of' },
    notes: nullable('string'),
    live_course_id: { type: 'integer' },
    concluded_at: nullable('string', { format: 'date-time' }),
    published_at: nullable('string', { format: 'date-time' }),
    timezone: nullable('string'),
    enroll_url: { type: 'string' },
    has_web_conference: { type: 'boolean', description: 'the session or any of its parts has one' },
    instuctors: {
      type: 'array',
      description: 'spelled as the spec spells it',
      items: { type: 'object', required: ['id', 'name', 'email', 'avatar_url'], properties: { id: { type: 'integer' }, name: { type: 'string' }, email: nullable('string'), avatar_url: nullable('string') } },
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    deleted_at: { ...nullable('string', { format: 'date-time' }), description: 'only when deleted records were asked for' },
  },
};
