import { CompleteRetainQuizBody, RETAIN_QUIZ_SCHEMA, RETAIN_QUIZ_SUBJECTS as S, UpdateRetainQuizBody } from '../catalog/retain-quizzes.contract.js';
import { IdParams } from '../common/query.js';
import { defineRoute } from './route.js';

const quizzes = { kind: 'envelope', key: 'quizzes', item: RETAIN_QUIZ_SCHEMA } as const;

/** The caller's retain quizzes (issue 15; docs/learner.md). */
export const CATALOG_RETAIN_QUIZ_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/learner/retain_quizzes/:id', subject: S.show, status: 200,
    summary: "One of the caller's retain quizzes (scheduled until due, then current, complete once completed)", params: IdParams, response: quizzes,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: '/api/learner/retain_quizzes/:id', subject: S.update, status: 200,
    summary: 'Sets started_at, the only field that may change (any other is a 400); a completed quiz is a 400', params: IdParams, body: UpdateRetainQuizBody, response: quizzes,
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/retain_quizzes/:id/complete', subject: S.complete, status: 200,
    summary: 'Completes a due quiz once (state complete, ended_at, progress 1, the score given); 400 before it is due', params: IdParams, body: CompleteRetainQuizBody, response: quizzes,
  }),
];
