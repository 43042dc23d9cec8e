import { ArrayMaxSize, IsArray, IsInt, Max, Min } from 'class-validator';
import { MAX_ID } from '../common/query.js';

/**
 * Internal request/reply subject (no HTTP route): catalog asks scheduling about the live courses of a
 * learner's live trainings (design §1: never its schema). The caller's `ctx` scopes the answer to its account.
 */
export const LEARNER_LIVE_COURSE_SUBJECTS = {
  summaries: 'scheduling.learner_live_courses.summaries',
} as const;

export class LiveCourseSummariesRequest {
  @IsArray() @ArrayMaxSize(1000) @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true })
  ids: number[];
}

/** What a learner record shows of a live course; unknown ones are absent, deleted ones carry `deleted_at`. */
export interface LiveCourseSummary {
  id: number;
  title: string;
  description: string | null;
  has_certificate: boolean;
  /** The location of the next future session (else of the latest one), or null. */
  location: string | null;
  /** Future sessions (start after now; parts not counted). */
  sessions_count: number;
  next_session_start_at: string | null;
  deleted_at: string | null;
}

export interface LiveCourseSummariesReply {
  live_courses: LiveCourseSummary[];
}
