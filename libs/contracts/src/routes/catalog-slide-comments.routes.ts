import {
  ListSlideCommentsQuery,
  RateSlideCommentParams,
  SLIDE_COMMENT_SCHEMA,
  SLIDE_COMMENT_SUBJECTS as S,
  SlideCommentBody,
  SlideCommentParams,
  SlideCommentsParams,
} from '../catalog/slide-comments.contract.js';
import { defineRoute } from './route.js';

const comments = { kind: 'envelope', key: 'comments', item: SLIDE_COMMENT_SCHEMA } as const;
const BASE = '/api/learner/courses/:course_id/slides/:slide_id/comments';

/** Slide comments (issue 15; docs/learner.md): for the course's enrolled learners and its authors. */
export const CATALOG_SLIDE_COMMENT_ROUTES = [
  defineRoute({
    method: 'GET', path: BASE, subject: S.list, status: 200, paged: true,
    summary: "A slide's comments, oldest first, for its course's enrolled learners and authors (404 for others)", params: SlideCommentsParams, query: ListSlideCommentsQuery, response: comments,
  }),
  defineRoute({
    method: 'POST', path: BASE, subject: S.create, status: 201,
    summary: 'Comments on a slide (`{"comment": {"body"}}`); 403 when the slide does not allow comments', params: SlideCommentsParams, body: SlideCommentBody, response: comments,
    errors: [403],
  }),
  defineRoute({
    method: 'GET', path: `${BASE}/:id`, subject: S.show, status: 200, summary: 'One comment', params: SlideCommentParams, response: comments,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${BASE}/:id`, subject: S.update, status: 200,
    summary: "Edits the caller's own comment (another's is a 404; 403 when the slide does not allow comments)", params: SlideCommentParams, body: SlideCommentBody, response: comments,
  }),
  defineRoute({
    method: 'DELETE', path: `${BASE}/:id`, subject: S.delete, status: 204,
    summary: "Deletes the caller's own comment; the course's authors delete any (404 for others)", params: SlideCommentParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: `${BASE}/:comment_id/rate`, subject: S.rate, status: 200,
    summary: 'Upvotes a comment: one upvote per user (again changes nothing); 403 when the slide does not allow comments', params: RateSlideCommentParams, response: comments,
  }),
];
