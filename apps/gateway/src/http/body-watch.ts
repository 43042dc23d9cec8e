import type { IncomingHttpHeaders } from 'node:http';
import { finished, PassThrough, type Readable } from 'node:stream';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError } from './problem.js';

/**
 * The answer to a body whose client sent nothing for UPLOAD_IDLE_MS. The rest of it will not be read, so
 * the answer ends the connection: it still reaches the client, which a reset would not.
 */
const bodyIdle = () =>
  new ProblemError(408, 'REQUEST_TIMEOUT', 'The request body sent nothing for too long (UPLOAD_IDLE_MS); send it again.', undefined, { connection: 'close' });

/**
 * The request's body as the gateway reads it. It ends and fails with the request (a client gone mid-body),
 * and fails with a 408 problem when the client sends nothing for `idleMs` while the reader waits for it:
 * a stalled client would otherwise hold the request, and whatever reads it, open for ever. Only the pipe is
 * stopped, not the request, so the 408 can still be answered. A request paused because its reader is
 * behind (a slow store) is not idle. Once the request is `answered` (refused before its body was read),
 * nobody waits for a 408: an idle body then ends its connection.
 */
export function watchedBody(request: Readable, idleMs: number, answered: () => boolean = () => false): Readable {
  const body = new PassThrough();
  // Its readers listen for its errors; one that nobody reads (a body refused unread) must not throw them.
  body.on('error', () => undefined);
  const timer = setTimeout(() => {
    if (answered()) {
      // Still arriving: nothing else can be on its connection yet. Arrived whole, it is being drained.
      if ((request as { complete?: boolean }).complete !== true) request.destroy();
      return;
    }
    if (request.isPaused()) return void timer.refresh();
    request.unpipe(body);
    body.destroy(bodyIdle());
  }, idleMs);
  const settled = () => clearTimeout(timer);
  finished(request, (err) => {
    settled();
    if (err) body.destroy(err);
  });
  body.once('close', settled);
  request.pipe(body);
  request.on('data', () => timer.refresh());
  return body;
}

/** Fastify reads a body only when one is announced. */
const hasBody = (headers: IncomingHttpHeaders) => headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * Every request body, JSON and uploads alike, is read through `watchedBody`: Fastify sets no request
 * timeout, so a body that stopped arriving held its request open for ever.
 */
@Injectable()
export class BodyWatch implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const idleMs = this.deps.runtime.config.uploadIdleMs;
    // A callback hook, not an async one (see RequestObserver); a request without a body passes untouched.
    fastify.addHook('preParsing', (request, reply, payload, done) => {
      if (!hasBody(request.headers)) return done(null, payload);
      const body = watchedBody(payload, idleMs, () => reply.raw.writableFinished);
      // Left unread by its reader (an upload refused as too large): the rest will not be read, so the
      // answer ends the connection rather than leave it waiting on the unread bytes.
      body.once('close', () => {
        if (!request.raw.complete && !reply.raw.headersSent) reply.header('connection', 'close');
      });
      // Answered before its body was read (a refusal): the rest is read and dropped, as Node does with a
      // body nobody reads, so the connection can carry the next request.
      reply.raw.once('finish', () => {
        if (!request.raw.readableEnded) body.resume();
      });
      done(null, body);
    });
  }
}
