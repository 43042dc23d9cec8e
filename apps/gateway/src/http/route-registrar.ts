import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { HttpMethod, Principal, RouteDefinition } from '@lms/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Authenticator } from '../auth/authenticator.js';
import { admits, audienceOf } from '../auth/audience.js';
import { Masquerade } from '../auth/masquerade.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { planRoutes } from './compat-input.js';
import { andThen, endHook } from './eventually.js';
import { ProblemError } from './problem.js';
import { replyWithProblem } from './problem-reply.js';
import { RouteForwarder } from './route-forwarder.js';

type Method = HttpMethod | 'HEAD' | 'OPTIONS';
const ALL_METHODS: Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** `/a/:id/b` and `/a/:x/b` are one resource: the router matches both the same way. */
const pathShape = (path: string) => path.replace(/:[^/]+/g, ':');

/**
 * Registers the route table on the Fastify instance: one generic handler per route and method, no
 * per-endpoint code. Authentication and the audience check run in `onRequest`, before any body is read.
 */
@Injectable()
export class RouteRegistrar implements OnModuleInit {
  constructor(
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: Authenticator,
    private readonly forwarder: RouteForwarder,
    private readonly masquerade: Masquerade,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Body shapes for bracketed parameters and forms are derived once here, not per request.
    planRoutes(this.deps.routes);
    for (const route of this.deps.routes) this.registerRoute(fastify, route);
    this.registerMethodNotAllowed(fastify, this.deps.routes);
  }

  private errorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    replyWithProblem(error, request, reply, this.deps.runtime.logger);
  };

  private registerRoute(fastify: FastifyInstance, route: RouteDefinition): void {
    fastify.route({
      method: route.methods,
      url: route.path,
      errorHandler: this.errorHandler,
      // A callback hook: a cached token without `as_user_id` (most requests) passes without a promise.
      onRequest: (request, _reply, done) => {
        const admit = (principal: Principal) => {
          if (!admits(route, principal.roles)) {
            throw new ProblemError(403, 'FORBIDDEN', `This endpoint is for ${audienceOf(route)}.`);
          }
          return this.masquerade.principalFor(route, principal, request);
        };
        const settle = (principal: Principal) => {
          request.principal = principal;
          done();
        };
        endHook(andThen(this.authenticator.authenticate(request), admit), settle, done);
      },
      handler: async (request, reply) => {
        const principal = request.principal;
        if (!principal) throw new Error('route handler reached without a principal');
        return this.forwarder.handle(route, principal, request, reply);
      },
    });
  }

  /** A known path asked with a method it does not have answers 405 with `Allow`, not 404. */
  private registerMethodNotAllowed(fastify: FastifyInstance, routes: RouteDefinition[]): void {
    const resources = new Map<string, { path: string; methods: Set<Method> }>();
    for (const route of routes) {
      const resource = resources.get(pathShape(route.path)) ?? { path: route.path, methods: new Set<Method>() };
      for (const method of route.methods) resource.methods.add(method);
      if (resource.methods.has('GET')) resource.methods.add('HEAD');
      resources.set(pathShape(route.path), resource);
    }
    for (const { path, methods } of resources.values()) {
      const missing = ALL_METHODS.filter((method) => !methods.has(method));
      if (missing.length === 0) continue;
      const allow = ALL_METHODS.filter((method) => methods.has(method)).join(', ');
      fastify.route({
        method: missing,
        url: path,
        exposeHeadRoute: false,
        errorHandler: this.errorHandler,
        handler: async (request, reply) =>
          replyWithProblem(new ProblemError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allow}.`, undefined, { allow }), request, reply, this.deps.runtime.logger),
      });
    }
  }
}
