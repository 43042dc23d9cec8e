import { IsBoolean, IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import { MAX_ID, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';

export const LIVE_UPDATE_SUBJECTS = {
  subscription: 'scheduling.registrations.subscription',
  /** The stream's reads, made by the gateway with a subscription's credential, not by any route. */
  changes: 'scheduling.registration_changes.since',
} as const;

/** The purpose a subscription token is signed for (platform `signToken`). */
export const LIVE_UPDATES_TOKEN_PURPOSE = 'live-updates';
export const LIVE_UPDATES_TOKEN_TTL_SECONDS = 900;
/** Where the gateway serves the stream. */
export const LIVE_UPDATES_PATH = '/live/registrations';

export interface LiveUpdatesClaims extends Record<string, unknown> {
  accountId: number;
  userId: number;
  liveCourseId: number;
  channel: string;
}

export class SubscriptionParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  live_course_session_id: number;
}

const CHANGE_CURSOR = /^(\d{1,20})-(\d{1,19})$/;
/** The largest transaction id (`xid8`, unsigned) and change id (`bigint`) the database holds. */
const MAX_XID8 = 2n ** 64n - 1n;
const MAX_BIGINT = 2n ** 63n - 1n;

/**
 * `<xid>-<id>`: a position in a live course's registration changes (the SSE event id), each number within
 * what its column holds: a larger one would fail every read of the stream in the database.
 */
export function isChangeCursor(value: unknown): value is string {
  const parts = typeof value === 'string' ? CHANGE_CURSOR.exec(value) : null;
  return parts !== null && BigInt(parts[1]) <= MAX_XID8 && BigInt(parts[2]) <= MAX_BIGINT;
}

export class ChangesSinceCall {
  @IsInt() @Min(1) @Max(MAX_ID)
  live_course_id: number;

  @IsOptional() @ValidateBy({ name: 'isChangeCursor', validator: { validate: isChangeCursor, defaultMessage: () => 'after must be a change cursor (<xid>-<id>)' } })
  after?: string;

  @IsOptional() @IsInt() @Min(1) @Max(500)
  limit?: number;

  /** Checks the subscriber first: a user of the author audience still (403 SUBSCRIPTION_REVOKED otherwise). */
  @IsOptional() @IsBoolean()
  subscriber?: boolean;
}

export interface RegistrationChange {
  /** The cursor of this change: the SSE `id`. */
  id: string;
  type: string;
  data: Record<string, unknown>;
  time: string;
}

/** What `changes` answers: the next changes, or, for a cursor the log was pruned past, where to start again. */
export interface RegistrationChangesPage {
  changes: RegistrationChange[];
  /** The cursor to go on from, after the reader has reloaded what it shows: changes it never saw were pruned. */
  reset?: string;
}

/** The SSE event a stream sends in place of changes that were pruned before its client read them. */
export const REGISTRATION_CHANGES_RESET_EVENT = 'scheduling.registrations.reset';

export const SUBSCRIPTION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url', 'channel', 'token'],
  properties: {
    url: { type: 'string', description: 'the Server-Sent Events stream; send the token as `token` query parameter' },
    channel: { type: 'string', description: 'path-like pattern ending in a wildcard: every registration of the course\'s sessions' },
    token: { type: 'string', description: 'signed, valid 15 minutes, for this channel and account only' },
  },
};
