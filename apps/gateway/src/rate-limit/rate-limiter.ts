import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Subscription } from '@lms/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Authenticator } from '../auth/authenticator.js';
import { credentialsOf } from '../auth/bearer-token.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { andThen, endHook, type Eventually } from '../http/eventually.js';
import { ProblemError } from '../http/problem.js';
import { replyWithProblem } from '../http/problem-reply.js';
import { pathOf } from '../http/query-normaliser.js';
import { linkCredentialOf } from '../files/link-credential.js';
import { addressKey } from './address-key.js';
import { parseUsageReport, QuotaLedger, type Decision, type QuotaPolicy } from './quota-ledger.js';

/** Replicas exchange what they admitted on this subject (a plain broadcast: losing one report only undercounts). */
export const RATE_LIMIT_USAGE_SUBJECT = 'gateway.rate_limit.usage';
/** How often a replica reports its counts (and so how stale the others' view of it can be). */
export const EXCHANGE_INTERVAL_MS = 100;
/** Exchanges a request may wait for its replica's share of the quota to come back before it is refused. */
const MAX_WAITS = 5;

const TOKEN = 'token';
const ADDRESS = 'address';
const LINK = 'link';

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The path as the router reads it, percent-decoded (as sent when it does not decode). */
function decodedPath(url: string): string {
  try {
    return decodeURIComponent(pathOf(url));
  } catch {
    return url;
  }
}

/**
 * Only the API is limited: health, metrics and the documentation are not. Judged on the route Fastify
 * matched, or on the decoded path when none did: `/%61pi/…` is the API too.
 */
const isLimited = (request: FastifyRequest) => {
  const path = request.routeOptions.url ?? decodedPath(request.url);
  return path.startsWith('/api/') && !path.startsWith('/api/docs') && !path.startsWith('/api/openapi.json');
};

/**
 * Rate limits per bearer token, per signed link (a file URL, a SCORM player's token: the token's quota), and
 * per client address for requests without a credential and for failed authentications and links that do not
 * verify (so rotating made-up tokens does not escape the limit). Answers `RateLimit` and
 * `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers, structured fields) on every API answer and
 * 429 with `Retry-After` once a quota is spent. Replicas share their counts over the bus (QuotaLedger).
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  readonly ledger: QuotaLedger;
  private readonly policies: QuotaPolicy[];
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;
  private waiters: (() => void)[] = [];

  constructor(
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: Authenticator,
  ) {
    const { rateLimitPerToken, rateLimitPerAddress, rateLimitWindowS } = deps.runtime.config;
    const windowMs = rateLimitWindowS * 1000;
    this.policies = [
      { name: TOKEN, quota: rateLimitPerToken, windowMs },
      { name: ADDRESS, quota: rateLimitPerAddress, windowMs },
      { name: LINK, quota: rateLimitPerToken, windowMs },
    ].filter((policy) => policy.quota > 0);
    this.ledger = new QuotaLedger(randomUUID(), this.policies);
  }

  private enabled(name: string): QuotaPolicy | undefined {
    return this.policies.find((p) => p.name === name);
  }

  onModuleInit(): void {
    if (this.policies.length === 0) return;
    const { bus, logger } = this.deps.runtime;
    this.subscription = bus.listen(RATE_LIMIT_USAGE_SUBJECT, (payload) => {
      const report = parseUsageReport(payload);
      if (report) this.ledger.merge(report);
      else logger.warn('unreadable rate-limit usage report ignored');
    });
    this.timer = setInterval(() => this.exchange(), EXCHANGE_INTERVAL_MS);
    this.timer.unref();

    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // A callback hook, and an answer without a promise unless a quota share must wait for an exchange.
    fastify.addHook('onRequest', (request, reply, done) => {
      const admitted = isLimited(request) ? this.admit(request, reply) : this.admitLink(request, reply);
      if (admitted === undefined) return done();
      const conclude = (problem: ProblemError | undefined) => (problem ? replyWithProblem(problem, request, reply, logger) : done());
      endHook(admitted, conclude, done);
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      // A made-up token costs its sender's address, however many different ones are tried.
      if (reply.statusCode === 401 && isLimited(request) && this.enabled(ADDRESS) && credentialsOf(request).kind === 'token') this.ledger.charge(ADDRESS, addressKey(request.ip));
      done();
    });
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.release();
    await this.subscription?.unsubscribe();
  }

  private exchange(): void {
    try {
      this.deps.runtime.bus.broadcast(RATE_LIMIT_USAGE_SUBJECT, this.ledger.report());
    } catch (err) {
      this.deps.runtime.logger.warn({ err }, 'rate-limit usage report not sent');
    }
    this.release();
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private nextExchange(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Counts the request; answers the 429 to send when a quota is spent (a promise only when a share must wait). */
  private admit(request: FastifyRequest, reply: FastifyReply): Eventually<ProblemError | undefined> {
    const credentials = credentialsOf(request);
    if (credentials.kind !== 'token') {
      // No token: the address pays.
      return this.count(ADDRESS, addressKey(request.ip), reply);
    }
    const address = this.enabled(ADDRESS);
    if (address && !this.authenticator.cache.get(credentials.hash)) {
      // A token not yet known good: the address vouches for it, and answers for it once spent. The request holds
      // its place in the token's quota until answered and counts only if it was not a 401, so an invented
      // token, refused, leaves no entry in the ledger, nor in the reports every replica merges (a flood of them
      // would otherwise grow both with every new one), while a good one's first requests, sent together, are
      // held to its quota as they arrive.
      const vouched = this.ledger.peek(ADDRESS, addressKey(request.ip));
      if (vouched.kind === 'deny') return this.answer(reply, address, vouched);
      const token = this.enabled(TOKEN);
      if (!token) return undefined;
      const { decision, release } = this.ledger.hold(TOKEN, credentials.hash);
      // 'close' comes after 'finish', and also when the client leaves first (that request counts for nothing).
      if (decision.kind === 'allow') reply.raw.once('close', () => release(reply.raw.writableFinished && reply.statusCode !== 401));
      return this.answer(reply, token, decision);
    }
    return this.count(TOKEN, credentials.hash, reply);
  }

  /**
   * A signed link is checked here (an HMAC, no I/O) so that it is counted as it arrives: a download is answered
   * only once its stream ends. One that does not verify costs the address, as a failed authentication does.
   */
  private admitLink(request: FastifyRequest, reply: FastifyReply): Eventually<ProblemError | undefined> {
    const link = linkCredentialOf(request, this.deps.runtime.config.fileUrlSigningKey);
    if (!link) return undefined;
    return link.kind === 'link' ? this.count(LINK, link.key, reply) : this.count(ADDRESS, addressKey(request.ip), reply);
  }

  /** Counts the request against the key's quota of that policy, when the policy is on. */
  private count(name: string, key: string, reply: FastifyReply): Eventually<ProblemError | undefined> {
    const policy = this.enabled(name);
    return policy ? andThen(this.take(name, key), (decision) => this.answer(reply, policy, decision)) : undefined;
  }

  /** The ledger's decision, or, while this replica's share is out, a promise of it after up to MAX_WAITS exchanges. */
  private take(policy: string, key: string): Eventually<Decision> {
    const decision = this.ledger.take(policy, key);
    return decision.kind === 'wait' ? this.takeAfterExchanges(policy, key, decision) : decision;
  }

  private async takeAfterExchanges(policy: string, key: string, decision: Decision): Promise<Decision> {
    for (let waits = 0; decision.kind === 'wait' && waits < MAX_WAITS; waits++) {
      await this.nextExchange();
      decision = this.ledger.take(policy, key);
    }
    return decision;
  }

  private answer(reply: FastifyReply, policy: QuotaPolicy, decision: Decision): ProblemError | undefined {
    const remaining = decision.kind === 'deny' ? 0 : decision.remaining;
    const headers = {
      'ratelimit-policy': `"${policy.name}";q=${policy.quota};w=${policy.windowMs / 1000}`,
      ratelimit: `"${policy.name}";r=${remaining};t=${seconds(decision.resetMs)}`,
    };
    if (decision.kind === 'allow') {
      reply.headers(headers);
      return undefined;
    }
    // Still waiting after several exchanges: the other replicas hold the rest of the quota for now.
    const retryAfter = decision.kind === 'deny' ? seconds(decision.resetMs) : 1;
    const detail =
      decision.kind === 'deny'
        ? `Too many requests for this ${policy.name}: ${policy.quota} per ${policy.windowMs / 1000} s. Retry after ${retryAfter} s.`
        : `Too many requests for this ${policy.name} at once; retry after ${retryAfter} s.`;
    return new ProblemError(429, 'RATE_LIMITED', detail, undefined, { ...headers, 'retry-after': String(retryAfter) });
  }
}
