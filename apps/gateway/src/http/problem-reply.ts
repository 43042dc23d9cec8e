import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@lms/platform';
import { PROBLEM_CONTENT_TYPE, problemDocument, resolveProblem } from './problem.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Answers any error as problem+json; an unexpected one is logged in full with the request id first. */
export function replyWithProblem(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): FastifyReply {
  const problem = resolveProblem(error);
  if (problem.unexpected) {
    logger.error({ err: error, requestId: request.id, method: request.method, url: request.url }, 'request failed');
  }
  if (reply.sent) return reply;
  return reply
    .code(problem.status)
    .headers({
      ...problem.headers,
      [REQUEST_ID_HEADER]: request.id,
      'content-type': PROBLEM_CONTENT_TYPE,
      'cache-control': 'no-store',
    })
    .send(JSON.stringify(problemDocument(problem, request.id)));
}
