import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Logger } from '@lms/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { replyWithProblem } from './problem-reply.js';

/**
 * Errors outside the route table (unknown paths, framework errors, the health and docs controllers)
 * get the same problem+json answer as the routes; Nest's default JSON error body never leaves.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    replyWithProblem(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}
