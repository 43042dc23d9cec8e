import { Inject, Injectable } from '@nestjs/common';
import type { Principal, RequestContext, RouteDefinition, RpcReply, RpcRequest } from '@lms/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { idempotencyKeyOf } from '../idempotency/idempotency-key.js';
import { declaredHeaders } from './declared-headers.js';
import { entityTag, ifNoneMatchHits } from './etag.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { forwardedHttps, pageLinks, publicBase, withAbsoluteUrls } from './link-header.js';
import { RpcReplyError } from './problem.js';
import { pathOf, searchOf } from './query-normaliser.js';
import { readInput, type PageRequest, type RouteInput } from './request-input.js';
import { MalformedReplyError } from './rpc-reply.js';
import { ServiceClient } from './service-client.js';
import { Uploads } from './uploads.js';

type Success = Extract<RpcReply, { ok: true }>;

/** Headers the gateway owns: a service cannot set them, so framing and correlation stay right. */
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'x-request-id', 'etag', 'link', 'x-total-count', 'set-cookie', 'content-type']);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const JSON_TYPE = 'application/json; charset=utf-8';

function lowerCaseHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * The one generic handler behind every route of the table (design §2): validated input goes to the
 * route's subject with the caller's context, and the reply becomes the HTTP answer.
 */
@Injectable()
export class RouteForwarder {
  constructor(
    private readonly services: ServiceClient,
    private readonly uploads: Uploads,
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
  ) {}

  async handle(route: RouteDefinition, principal: Principal, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const file = this.uploads.take(route, request);
    // An upload carries no JSON body to check, also on a route that takes one as the alternative.
    const input = await readInput(file && route.body ? { ...route, body: undefined } : route, request);
    if (!file) return this.forward(route, principal, request, reply, input);
    // Read only once the rest of the request is valid; deleted once the service has taken what it keeps.
    const staged = await this.uploads.stage(route, file, request);
    try {
      // The service reads the whole file (a 200 MB package is checked and unpacked): more than an RPC's time.
      return await this.forward(route, principal, request, reply, { ...input, body: staged }, this.uploads.timeoutMs);
    } finally {
      await this.uploads.discard(staged.upload.key);
    }
  }

  private async forward(route: RouteDefinition, principal: Principal, request: FastifyRequest, reply: FastifyReply, input: RouteInput, timeoutMs?: number): Promise<FastifyReply> {
    // The context names who is calling, nothing more: token details stay at the edge. With `as_user_id`
    // it names the user acted as, and `actorId` the administrator really calling.
    const { accountId, subAccountId, userId, roles, actorId } = principal;
    const ctx: RequestContext = { requestId: request.id, accountId, subAccountId, userId, roles, ...(actorId !== undefined ? { actorId } : {}), ...idempotencyKeyOf(request) };
    const headers = declaredHeaders(route, request);
    const payload: RpcRequest = { ctx, params: input.params as Record<string, string>, query: input.query, body: input.body, ...(headers ? { headers } : {}) };
    const answer = await this.services.request(route.subject, payload, timeoutMs);
    if (!answer.ok) throw new RpcReplyError(answer.error);
    return this.send(route, request, reply, answer, input.page);
  }

  private send(route: RouteDefinition, request: FastifyRequest, reply: FastifyReply, sent: Success, page?: PageRequest): FastifyReply {
    const answer = route.absoluteUrls && sent.body !== undefined ? { ...sent, body: withAbsoluteUrls(sent.body, route.absoluteUrls, this.baseOf(request)) } : sent;
    const headers = lowerCaseHeaders(answer.headers);
    for (const [name, value] of Object.entries(headers)) {
      if (!RESERVED_HEADERS.has(name) && HEADER_NAME.test(name) && HEADER_VALUE.test(value)) reply.header(name, value);
    }
    if (route.deprecated) {
      // RFC 9745: the moment as a structured-field date; the successor (or the notice) as a link.
      reply.header('deprecation', `@${Math.floor(Date.parse(route.deprecated.since) / 1000)}`);
      reply.header('link', `<${route.deprecated.link}>; rel="${route.deprecated.rel}"`);
    }
    const size = answer.total ?? (answer.more === undefined ? undefined : { more: answer.more });
    if (route.paged && page && size !== undefined) {
      const pages = pageLinks({ base: this.baseOf(request), path: pathOf(request.url), search: searchOf(request.url), page: page.page, perPage: page.perPage, size, next: answer.next });
      reply.header('link', route.deprecated ? `${String(reply.getHeader('link'))}, ${pages}` : pages);
      // Only a counted list has a total to tell.
      if (typeof size === 'number') reply.header('x-total-count', String(size));
    }

    if (route.response.kind === 'redirect') {
      if (!headers.location) throw new MalformedReplyError(route.subject, 'redirect without a location header');
      const status = answer.status !== undefined && answer.status >= 300 && answer.status <= 399 ? answer.status : 302;
      return reply.code(status).header('cache-control', 'no-store').send();
    }

    const status = answer.status ?? route.status;
    reply.code(status);
    if (answer.secret) reply.header('cache-control', 'no-store');
    if (status === 204 || answer.body === undefined) return reply.send();

    const { bytes, contentType } = route.response.kind === 'file' ? this.fileBody(route, answer, headers) : { bytes: JSON.stringify(answer.body), contentType: JSON_TYPE };
    if (status === 200 && (request.method === 'GET' || request.method === 'HEAD') && !answer.secret) {
      const etag = entityTag(bytes);
      // `no-cache`: caches may keep the answer but must revalidate it (cheap, thanks to the ETag) every time.
      reply.header('etag', etag).header('cache-control', 'private, no-cache').header('vary', 'Authorization');
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
    }
    return reply.header('content-type', contentType).send(bytes);
  }

  /** Where the answer's links start: PUBLIC_URL, else the request's scheme and Host. */
  private baseOf(request: FastifyRequest): string {
    return publicBase(this.deps.runtime.config.publicUrl, request.protocol, request.host, forwardedHttps(request.headers));
  }

  /** A file travels over the bus as text, or as `{ base64 }` when it is binary. */
  private fileBody(route: RouteDefinition, answer: Success, headers: Record<string, string>): { bytes: string | Buffer; contentType: string } {
    const declared = route.response.kind === 'file' ? route.response.contentType : 'application/octet-stream';
    const contentType = headers['content-type'] && HEADER_VALUE.test(headers['content-type']) ? headers['content-type'] : declared;
    const body = answer.body;
    if (typeof body === 'string') return { bytes: body, contentType };
    if (typeof body === 'object' && body !== null && typeof (body as { base64?: unknown }).base64 === 'string') {
      return { bytes: Buffer.from((body as { base64: string }).base64, 'base64'), contentType };
    }
    throw new MalformedReplyError(route.subject, 'file reply is neither text nor { base64 }');
  }
}
