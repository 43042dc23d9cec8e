import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import type { JsonSchema } from '../routes/route.js';

export const RETAIN_QUIZ_SUBJECTS = {
  show: 'catalog.retain_quizzes.show',
  update: 'catalog.retain_quizzes.update',
  complete: 'catalog.retain_quizzes.complete',
} as const;

export const RETAIN_QUIZ_STATES = ['scheduled', 'current', 'complete'] as const;
export type RetainQuizState = (typeof RETAIN_QUIZ_STATES)[number];

/** The spec's Retain quiz, plus `due_at` (when it becomes current). */
export interface RetainQuizView {
  id: number;
  course_id: number;
  enrollment_id: number;
  state: RetainQuizState;
  progress: number;
  score: number | null;
  current_question_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  due_at: string;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const RETAIN_QUIZ_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'course_id', 'enrollment_id', 'state', 'progress', 'score', 'current_question_id', 'started_at', 'ended_at', 'due_at'],
  properties: {
    id: { type: 'integer' },
    course_id: { type: 'integer', description: 'the course template' },
    enrollment_id: { type: 'integer', description: 'the completed enrollment that scheduled it' },
    state: { type: 'string', enum: [...RETAIN_QUIZ_STATES], description: 'scheduled until due_at, then current; complete once completed' },
    progress: { type: 'number', minimum: 0, maximum: 1 },
    score: nullable('integer', { minimum: 0, maximum: 100 }),
    current_question_id: nullable('string'),
    started_at: nullable('string', { format: 'date-time' }),
    ended_at: nullable('string', { format: 'date-time' }),
    due_at: { type: 'string', format: 'date-time', description: 'the completion plus the interval (an addition to the spec)' },
  },
};

/** Only `started_at` may change (spec: States and transitions); any other field is refused. */
export class RetainQuizChanges {
  @IsDefined() @IsTimestamp({ message: 'started_at must be an RFC 3339 date-time' })
  started_at: string;
}

export class UpdateRetainQuizBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => RetainQuizChanges)
  quiz: RetainQuizChanges;
}

export class RetainQuizResult {
  /** 0 to 100; absent: no score recorded. */
  @IsOptional() @IsInt() @Min(0) @Max(100)
  score?: number;
}

/** The result of the quiz, optional: `POST .../complete` with no body completes it without a score. */
export class CompleteRetainQuizBody {
  @IsOptional() @IsObject() @ValidateNested() @Type(() => RetainQuizResult)
  quiz?: RetainQuizResult;
}

