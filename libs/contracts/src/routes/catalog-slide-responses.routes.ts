import { SlideCommentsParams } from '../catalog/slide-comments.contract.js';
import {
  LEARNER_SLIDE_SCHEMA,
  LearnerSlidesParams,
  ListLearnerSlidesQuery,
  SLIDE_RESPONSE_SCHEMA,
  SLIDE_RESPONSE_SUBJECTS as S,
  SlideResponseBody,
} from '../catalog/slide-responses.contract.js';
import { defineRoute } from './route.js';

const slides = { kind: 'envelope', key: 'slides', item: LEARNER_SLIDE_SCHEMA } as const;

/**
 * A course's slides as its learner reads them, and answers to quiz slides (issue 8; docs/catalog.md "Quiz
 * slides"): the learner's own, in an enrollment of theirs.
 */
export const CATALOG_SLIDE_RESPONSE_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/learner/courses/:course_id/slides', subject: S.slides, status: 200, paged: true,
    summary:
      "The published slides of a course (course_id: the course template) in the caller's live enrollment in it, in order, each with the caller's latest answer; " +
      'a question without which choices are correct (404 without an enrollment, or when the course is unpublished or archived)',
    params: LearnerSlidesParams, query: ListLearnerSlidesQuery, response: slides,
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/courses/:course_id/slides/:slide_id', subject: S.slide, status: 200,
    summary: 'One published slide of such a course, with the caller\'s latest answer', params: SlideCommentsParams, response: slides,
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/courses/:course_id/slides/:slide_id/responses', subject: S.create, status: 201, errors: [409],
    summary:
      "Answers a published quiz slide of a course (course_id: the course template) in the caller's live enrollment in it (404 without one); " +
      '400 for a slide with no question or unknown choices; 409 QUIZ_ATTEMPTS_EXHAUSTED past the course\'s max_quiz_attempts',
    params: SlideCommentsParams, body: SlideResponseBody, response: { kind: 'object', key: 'response', item: SLIDE_RESPONSE_SCHEMA },
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/courses/:course_id/slides/:slide_id/view', subject: S.view, status: 204,
    summary:
      "Marks a published slide of a course (course_id: the course template) seen in the caller's live enrollment in it (404 without one): " +
      "in a native course an assigned enrollment starts and its progress reaches the slide (never back); a completed enrollment stays as it is",
    params: SlideCommentsParams, response: { kind: 'empty' },
  }),
];
