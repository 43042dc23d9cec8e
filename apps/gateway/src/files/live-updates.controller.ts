import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { type ChangesSinceCall, isChangeCursor, LIVE_UPDATE_SUBJECTS, LIVE_UPDATES_PATH, LIVE_UPDATES_TOKEN_PURPOSE, type LiveUpdatesClaims, REGISTRATION_CHANGES_RESET_EVENT, type RegistrationChangesPage, type RequestContext, type RpcReply } from '@lms/contracts';
import { verifyToken } from '@lms/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError, RpcReplyError } from '../http/problem.js';
import { cutWhenStalled } from './stream-reply.js';
import { ServiceClient } from '../http/service-client.js';

/** How often an idle stream asks for new changes, and how often it says it is alive. */
const POLL_MS = 500;
const HEARTBEAT_MS = 15_000;

/**
 * Streams one user may hold open at once on a gateway replica. Each polls scheduling twice a second, and a
 * subscription's token opens any number of them; a browser holds one per open page.
 */
export const MAX_STREAMS_PER_USER = 10;

/** How long a stream waits for its client to read what is buffered before it ends (the client reconnects with its last id). */
const SLOW_CLIENT_MS = 15_000;

const sseEvent = (id: string, type: string, data: object) => `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

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

  /** Open streams by account and user; a holder with none is removed. */
  private readonly streams = new Map<string, number>();

  @Get(LIVE_UPDATES_PATH.slice(1))
  async stream(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const query = request.query as Record<string, unknown>;
    const check = verifyToken<LiveUpdatesClaims>(this.deps.runtime.config.fileUrlSigningKey, LIVE_UPDATES_TOKEN_PURPOSE, typeof query.token === 'string' ? query.token : '');
    if (!check.ok) {
      throw new ProblemError(403, check.reason === 'expired' ? 'SUBSCRIPTION_EXPIRED' : 'SUBSCRIPTION_INVALID', check.reason === 'expired' ? 'This subscription has expired: ask for a new one.' : 'This subscription token is not valid.');
    }
    const last = request.headers['last-event-id'] ?? query.last_event_id;
    if (last !== undefined && !isChangeCursor(last)) throw new ProblemError(400, 'LAST_EVENT_ID_INVALID', 'Last-Event-ID must be the id of an event of this stream.');

    // A refused subscriber is a 403 here, so an EventSource stops reconnecting. Any other failure is the
    // stream's to meet, as a poll's is (a scheduling older than the check refuses the field: a 400).
    const checked = await this.changes(request, check.claims, { subscriber: true, limit: 1 }).catch(() => undefined);
    if (checked?.ok === false && checked.error.status === 403) throw new RpcReplyError(checked.error);
    // The client left while the subscriber was checked: no stream to hold open for it.
    if (request.raw.destroyed || request.raw.socket?.destroyed) return reply;

    const holder = `${check.claims.accountId}:${check.claims.userId}`;
    const held = this.streams.get(holder) ?? 0;
    if (held >= MAX_STREAMS_PER_USER) {
      throw new ProblemError(429, 'TOO_MANY_STREAMS', `At most ${MAX_STREAMS_PER_USER} live update streams may be open at once for one user: close one first.`, undefined, { 'retry-after': '5' });
    }
    this.streams.set(holder, held + 1);

    const out = new PassThrough();
    const gone = new AbortController();
    const leave = () => gone.abort();
    request.raw.once('close', leave);
    const ended = AbortSignal.any([gone.signal, AbortSignal.timeout(Math.max(0, check.expiresAt - Date.now()))]);
    void this.pump(request, check.claims, last, out, ended).finally(() => {
      request.raw.off('close', leave);
      const left = (this.streams.get(holder) ?? 1) - 1;
      if (left > 0) this.streams.set(holder, left);
      else this.streams.delete(holder);
      out.end();
    });
    // Ended (the token's time is up, or the client read too slowly), a stream whose client takes nothing more is cut.
    cutWhenStalled(request, reply);
    return reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-accel-buffering', 'no')
      .send(out);
  }

  /**
   * Writes the course's changes after `cursor` until the stream has `ended` (the client left, or the token
   * did) or the gateway closes. A client that reads slower than the log grows is waited for, so what is
   * buffered stays one page, and dropped after SLOW_CLIENT_MS.
   */
  private async pump(request: FastifyRequest, claims: LiveUpdatesClaims, cursor: string | undefined, out: PassThrough, ended: AbortSignal): Promise<void> {
    const send = async (text: string) => {
      if (!out.write(text)) await once(out, 'drain', { signal: AbortSignal.any([ended, AbortSignal.timeout(SLOW_CLIENT_MS)]) });
    };
    try {
      await send(`retry: 2000\n: ${claims.channel}\n\n`);
      let lastWrite = Date.now();
      let after = cursor;
      let checkedAt = Date.now();
      while (!ended.aborted && !this.deps.lifecycle.closing) {
        // Every LIVE_UPDATES_RECHECK_MS scheduling checks the subscriber again: deleted, or no longer an author, the stream ends.
        const recheck = Date.now() - checkedAt >= this.deps.runtime.config.liveUpdatesRecheckMs;
        const answer = await this.changes(request, claims, { ...(after ? { after } : {}), ...(recheck ? { subscriber: true } : {}) }).catch(() => undefined);
        if (answer?.ok === false && answer.error.status === 403) return;
        if (recheck) checkedAt = Date.now();
        const page = answer?.ok ? (answer.body as RegistrationChangesPage) : undefined;
        if (page?.reset) {
          // The log was pruned past this client's last event: it reloads what it shows, then goes on from here.
          await send(sseEvent(page.reset, REGISTRATION_CHANGES_RESET_EVENT, { live_course_id: claims.liveCourseId, time: new Date().toISOString() }));
          after = page.reset;
          lastWrite = Date.now();
          continue;
        }
        const changes = page?.changes ?? [];
        for (const change of changes) {
          await send(sseEvent(change.id, change.type, { ...change.data, time: change.time }));
          after = change.id;
          lastWrite = Date.now();
        }
        if (changes.length > 0) continue;
        if (Date.now() - lastWrite >= HEARTBEAT_MS) {
          await send(': keep-alive\n\n');
          lastWrite = Date.now();
        }
        await sleep(answer?.ok ? POLL_MS : POLL_MS * 4, undefined, { signal: ended });
      }
    } catch (err) {
      // Ended while waiting for the client to read or for the next poll, or the client read too slowly.
      if ((err as Error).name !== 'AbortError') this.deps.runtime.logger.warn({ err, channel: claims.channel }, 'live updates stream failed');
    }
  }

  /** A page of the course's changes as the subscription's holder (an author); `subscriber` has their standing checked first. */
  private changes(request: FastifyRequest, claims: LiveUpdatesClaims, body: Partial<ChangesSinceCall>): Promise<RpcReply> {
    const ctx: RequestContext = { requestId: request.id, accountId: claims.accountId, subAccountId: null, userId: claims.userId, roles: ['author'] };
    return this.services.request(LIVE_UPDATE_SUBJECTS.changes, { ctx, params: {}, query: {}, body: { live_course_id: claims.liveCourseId, ...body } });
  }
}
