import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsDefined, IsObject, IsString, Matches, ValidateNested } from 'class-validator';
import type { JsonSchema } from '../routes/route.js';
import { CHOICE_ID, MAX_QUESTION_CHOICES } from './slides.contract.js';

export const SLIDE_RESPONSE_SUBJECTS = {
  create: 'catalog.slide_responses.create',
} as const;

/** A learner answers a quiz slide of a course at most this many times when the course sets no `max_quiz_attempts`. */
export const MAX_SLIDE_ATTEMPTS = 1000;

/** The choices a learner picks: one, or several on a question with `multiple`. */
export class SlideResponseFields {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_QUESTION_CHOICES) @ArrayUnique({ message: 'choice_ids must not repeat a choice' })
  @IsString({ each: true }) @Matches(CHOICE_ID, { each: true, message: 'each choice id is 1 to 50 letters, digits, _ or -' })
  choice_ids: string[];
}

/** `{"response": {"choice_ids": ["b"]}}`. */
export class SlideResponseBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => SlideResponseFields)
  response: SlideResponseFields;
}

/** One answer of the caller to a quiz slide. */
export interface SlideResponseView {
  id: number;
  course_id: number;
  slide_id: number;
  enrollment_id: number;
  choice_ids: string[];
  correct: boolean;
  /** 1 for the first answer to the slide in this enrollment, then 2, 3… */
  attempt: number;
  /** Answers still allowed on this slide (the course's `max_quiz_attempts`); null when the course sets no limit. */
  attempts_remaining: number | null;
  /** Present only when the course's `show_correct_response` is true and this slide is done for the learner (correct, or no attempt left). */
  correct_choice_ids?: string[];
  created_at: string;
}

export const SLIDE_RESPONSE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'course_id', 'slide_id', 'enrollment_id', 'choice_ids', 'correct', 'attempt', 'attempts_remaining', 'created_at'],
  properties: {
    id: { type: 'integer' },
    course_id: { type: 'integer' },
    slide_id: { type: 'integer' },
    enrollment_id: { type: 'integer' },
    choice_ids: { type: 'array', items: { type: 'string' } },
    correct: { type: 'boolean' },
    attempt: { type: 'integer', minimum: 1 },
    attempts_remaining: { type: ['integer', 'null'], minimum: 0, description: "the course's max_quiz_attempts less the answers given; null without a limit" },
    correct_choice_ids: {
      type: 'array', items: { type: 'string' },
      description: "only when the course's show_correct_response is true and the slide is done for the learner (this answer correct, or no attempt left)",
    },
    created_at: { type: 'string', format: 'date-time' },
  },
};
