import { SlideCommentsParams } from '../catalog/slide-comments.contract.js';
import { SLIDE_RESPONSE_SCHEMA, SLIDE_RESPONSE_SUBJECTS as S, SlideResponseBody } from '../catalog/slide-responses.contract.js';
import { defineRoute } from './route.js';

/** Answers to quiz slides (issue 8; docs/catalog.md "Quiz slides"): the learner's own, in an enrollment of theirs. */
export const CATALOG_SLIDE_RESPONSE_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/learner/courses/:course_id/slides/:slide_id/responses', subject: S.create, status: 201, errors: [409],
    summary:
      "Answers a published quiz slide of a course (course_id: the course template) in the caller's live enrollment in it (404 without one); " +
      '400 for a slide with no question or unknown choices; 409 QUIZ_ATTEMPTS_EXHAUSTED past the course\'s max_quiz_attempts',
    params: SlideCommentsParams, body: SlideResponseBody, response: { kind: 'object', key: 'response', item: SLIDE_RESPONSE_SCHEMA },
  }),
];
