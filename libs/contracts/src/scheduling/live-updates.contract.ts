import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
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

/** `<xid>-<id>`: a position in a live course's registration changes (the SSE event id). */
export const CHANGE_CURSOR = /^\d{1,20}-\d{1,20}$/;

export class ChangesSinceCall {
  @IsInt() @Min(1) @Max(MAX_ID)
  live_course_id: number;

  @IsOptional() @Matches(CHANGE_CURSOR)
  after?: string;

  @IsOptional() @IsInt() @Min(1) @Max(500)
  limit?: number;
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
