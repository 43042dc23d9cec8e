import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsDefined, IsInt, IsObject, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import type { JsonSchema } from '../routes/route.js';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import { CHOICE_ID, LEARNER_SLIDE_ATTRIBUTES_SCHEMA, MAX_QUESTION_CHOICES, type SlideAttributesView } from './slides.contract.js';

export const SLIDE_RESPONSE_SUBJECTS = {
  create: 'catalog.slide_responses.create',
  /** The learner has seen a slide: their enrollment starts and its progress reaches the slide. */
  view: 'catalog.slide_responses.view',
  /** The learner's side of a course's slides: their content as published, and the caller's latest answer. */
  slides: 'catalog.slide_responses.slides.list',
  slide: 'catalog.slide_responses.slides.show',
} as const;

/** `/api/learner/courses/:course_id/slides`: a course template the caller is enrolled in. */
export class LearnerSlidesParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  course_id: number;
}

export class ListLearnerSlidesQuery extends PageQuery {}

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

/** A published slide of a course as its enrolled learner reads it, with their latest answer to it. */
export interface LearnerSlideView {
  id: number;
  course_id: number;
  /** Published position, 1..n. */
  position: number;
  estimated_time: number;
  attachments: unknown[];
  attributes: Omit<SlideAttributesView, 'question'> & { question: { prompt: string; choices: { id: string; text: string }[]; multiple: boolean } | null };
  /** The caller's latest answer in their live enrollment, or null. */
  response: SlideResponseView | null;
}

export const LEARNER_SLIDE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'course_id', 'position', 'estimated_time', 'attachments', 'attributes', 'response'],
  properties: {
    id: { type: 'integer' },
    course_id: { type: 'integer' },
    position: { type: 'integer', minimum: 1, description: 'published position' },
    estimated_time: { type: 'integer', description: 'minutes' },
    attachments: { type: 'array', items: { type: 'object' } },
    attributes: LEARNER_SLIDE_ATTRIBUTES_SCHEMA,
    response: { ...SLIDE_RESPONSE_SCHEMA, type: ['object', 'null'], description: "the caller's latest answer to the slide in their live enrollment, or null" },
  },
};
