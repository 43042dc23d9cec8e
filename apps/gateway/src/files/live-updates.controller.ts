import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { CHANGE_CURSOR, LIVE_UPDATE_SUBJECTS, LIVE_UPDATES_PATH, LIVE_UPDATES_TOKEN_PURPOSE, type LiveUpdatesClaims, type RegistrationChange, type RequestContext } from '@lms/contracts';
import { verifyToken } from '@lms/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError } from '../http/problem.js';
import { ServiceClient } from '../http/service-client.js';

/** How often an idle stream asks for new changes, and how often it says it is alive. */
const POLL_MS = 500;
const HEARTBEAT_MS = 15_000;

/**
 * Live updates of a live course's registrations as Server-Sent Events (issue 10; docs/scheduling.md).
 * The subscription's token is the only credential (an EventSource sends no Authorization header): it
 * names the account and the course's channel and works for nothing else. Each event's `id` is its place
 * in the course's change log, so a client that reconnects with `Last-Event-ID` gets exactly what it missed.
 */
@Controller()
export class LiveUpdatesController {
  constructor(
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
    private readonly services: ServiceClient,
  ) {}

  @Get(LIVE_UPDATES_PATH.slice(1))
  stream(@Req() request: FastifyRequest, @Res() reply: FastifyReply): FastifyReply {
    const query = request.query as Record<string, unknown>;
    const check = verifyToken<LiveUpdatesClaims>(this.deps.runtime.config.fileUrlSigningKey, LIVE_UPDATES_TOKEN_PURPOSE, typeof query.token === 'string' ? query.token : '');
    if (!check.ok) {
      throw new ProblemError(403, check.reason === 'expired' ? 'SUBSCRIPTION_EXPIRED' : 'SUBSCRIPTION_INVALID', check.reason === 'expired' ? 'This subscription has expired: ask for a new one.' : 'This subscription token is not valid.');
    }
    const last = request.headers['last-event-id'] ?? query.last_event_id;
    if (last !== undefined && (typeof last !== 'string' || !CHANGE_CURSOR.test(last))) throw new ProblemError(400, 'LAST_EVENT_ID_INVALID', 'Last-Event-ID must be the id of an event of this stream.');

    const out = new PassThrough();
    let open = true;
    const stop = () => {
      open = false;
    };
    request.raw.once('close', stop);
    void this.pump(request, check.claims, check.expiresAt, last, out, () => open).finally(() => {
      request.raw.off('close', stop);
      out.end();
    });
    return reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-accel-buffering', 'no')
      .send(out);
  }

  /** Writes the course's changes after `cursor` until the client leaves, the gateway closes or the token ends. */
  private async pump(request: FastifyRequest, claims: LiveUpdatesClaims, expiresAt: number, cursor: string | undefined, out: PassThrough, open: () => boolean): Promise<void> {
    const ctx: RequestContext = { requestId: request.id, accountId: claims.accountId, subAccountId: null, userId: claims.userId, roles: ['author'] };
    out.write(`retry: 2000\n: ${claims.channel}\n\n`);
    let lastWrite = Date.now();
    let after = cursor;
    while (open() && !this.deps.lifecycle.closing && Date.now() < expiresAt) {
      const answer = await this.services
        .request(LIVE_UPDATE_SUBJECTS.changes, { ctx, params: {}, query: {}, body: { live_course_id: claims.liveCourseId, ...(after ? { after } : {}) } })
        .catch(() => undefined);
      const changes = answer?.ok ? ((answer.body as { changes: RegistrationChange[] }).changes ?? []) : [];
      for (const change of changes) {
        out.write(`id: ${change.id}\nevent: ${change.type}\ndata: ${JSON.stringify({ ...change.data, time: change.time })}\n\n`);
        after = change.id;
        lastWrite = Date.now();
      }
      if (changes.length > 0) continue;
      if (Date.now() - lastWrite >= HEARTBEAT_MS) {
        out.write(': keep-alive\n\n');
        lastWrite = Date.now();
      }
      await sleep(answer?.ok ? POLL_MS : POLL_MS * 4);
    }
  }
}
