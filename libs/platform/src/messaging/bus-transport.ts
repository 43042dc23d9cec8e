import { performance } from 'node:perf_hooks';
import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { BaseRpcContext, Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom, throwError, type Observable } from 'rxjs';
import type { RpcReply, RpcRequest } from '@lms/contracts';
import type { Logger } from '../observability/logger.js';
import { observeRpc } from '../observability/rpc-metrics.js';
import { ContextRefusedError, type ContextSeal } from '../rpc/context-seal.js';
import type { DirectHandler } from '../rpc/dispatch.js';
import { rememberForwardedHeaders } from '../rpc/forwarded-headers.js';
import { DomainError, isConcurrentChange, isDatabaseUnavailable, toRpcError } from '../rpc/rpc-errors.js';
import type { MessageBus, Subscription } from './message-bus.js';
import { Reply } from './reply.js';

/**
 * Hands every error on unchanged. Nest's default RPC filter turns unknown errors into a generic object and
 * drops their status (nestjs/nest#6496); registered globally, this lets BusTransport map errors itself.
 */
@Catch()
export class PassThroughRpcFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

/** What `@Ctx()` receives in a handler served by BusTransport: the subject of the request. */
export class BusContext extends BaseRpcContext<[subject: string]> {
  getSubject(): string {
    return this.args[0];
  }
}

/** Runs around a handler that succeeds or throws, e.g. to claim an Idempotency-Key in its transaction. */
export type HandlerGuard = (subject: string, payload: unknown, invoke: () => Promise<RpcReply>) => Promise<RpcReply>;

/**
 * Nest microservice transport over a MessageBus: each `@MessagePattern(subject)` is served in a queue group,
 * and every outcome, errors included, goes back as an RpcReply, so a handler never leaves a caller waiting.
 * No handler runs for a request whose caller context the gateway did not sign (ContextSeal).
 */
export class BusTransport extends Server implements CustomTransportStrategy {
  private subscriptions: Subscription[] = [];
  private direct = new Map<string, DirectHandler>();
  private readonly inFlight = new Set<Promise<RpcReply>>();

  constructor(
    private readonly bus: MessageBus,
    private readonly queue: string,
    private readonly log: Logger,
    private readonly seal: ContextSeal,
    private readonly guard?: HandlerGuard,
  ) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    for (const [subject, handler] of this.messageHandlers) {
      if (handler.isEventHandler) {
        // Domain events travel through the EventLog with durable consumers, not through Nest event patterns.
        this.log.warn({ subject }, '@EventPattern is not served by BusTransport; consume events from the EventLog');
        continue;
      }
      const direct = this.direct.get(subject);
      this.subscriptions.push(this.bus.serve(subject, this.queue, (payload, fromThisProcess) => this.track(this.handle(subject, handler, direct, payload, fromThisProcess))));
    }
    this.log.debug({ queue: this.queue, subjects: this.subscriptions.length }, 'serving message patterns');
    callback();
  }

  /**
   * Stops taking requests, then waits for the handlers still running: their replies go out and their
   * writes commit before the service closes its database (a bus's own drain only waits for delivery).
   */
  async close(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((sub) => sub.unsubscribe()));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  on(): never {
    throw new Error('BusTransport emits no events; watch the MessageBus instead');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  /**
   * Subjects whose @Handles method is called directly (see `directHandlers`) instead of through Nest's
   * microservice dispatch, which costs more per request than the handler; set before `listen`.
   */
  useDirectHandlers(handlers: Map<string, DirectHandler>): void {
    this.direct = handlers;
  }

  /**
   * The one step that reads who is calling: every request passes it before any handler runs. One that
   * came over the network must carry the gateway's seal; one from this process (the all-in-one's
   * gateway, or a service beside this one) was on no wire, so it is not sealed (docs/security.md).
   */
  private requestOf(subject: string, payload: unknown, fromThisProcess: boolean): RpcRequest {
    if (!fromThisProcess) this.seal.verify(subject, payload);
    rememberForwardedHeaders(payload as RpcRequest);
    return payload as RpcRequest;
  }

  private async dispatch(subject: string, handler: MessageHandler, direct: DirectHandler | undefined, request: RpcRequest): Promise<unknown> {
    if (direct) {
      const result = await direct(request);
      return isObservable(result) ? lastValueFrom(result, { defaultValue: undefined }) : result;
    }
    return lastValueFrom(this.transformToObservable(handler(request, new BusContext([subject]))), { defaultValue: undefined });
  }

  private track(work: Promise<RpcReply>): Promise<RpcReply> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
    return work;
  }

  private async handle(subject: string, handler: MessageHandler, direct: DirectHandler | undefined, payload: unknown, fromThisProcess: boolean): Promise<RpcReply> {
    const started = performance.now();
    const requestId = (payload as Partial<RpcRequest> | undefined)?.ctx?.requestId;
    let answer: RpcReply;
    try {
      const request = this.requestOf(subject, payload, fromThisProcess);
      const invoke = async (): Promise<RpcReply> => {
        const result = await this.dispatch(subject, handler, direct, request);
        return result instanceof Reply
          ? { ok: true, status: result.status, body: result.body, total: result.total, more: result.more, next: result.next, headers: result.headers, secret: result.secret }
          : { ok: true, body: result };
      };
      answer = this.guard ? await this.guard(subject, request, invoke) : await invoke();
    } catch (err) {
      if (err instanceof ContextRefusedError) this.log.warn({ subject, requestId, reason: err.reason }, 'refused a request not signed by the gateway');
      else if (isDatabaseUnavailable(err)) this.log.warn({ err, subject, requestId }, 'database unavailable: answered 503');
      else if (isConcurrentChange(err)) this.log.warn({ err, subject, requestId }, 'lost a race to another transaction: answered 409');
      else if (!(err instanceof DomainError)) this.log.error({ err, subject, requestId }, 'unexpected error in message handler');
      answer = { ok: false, error: toRpcError(err) };
    }
    const status = answer.ok ? (answer.status ?? 200) : answer.error.status;
    const elapsedMs = performance.now() - started;
    observeRpc(this.queue, subject, status, elapsedMs / 1000);
    if (this.log.isLevelEnabled('info')) this.log.info({ subject, requestId, status, durationMs: Math.round(elapsedMs) }, 'handled request');
    return answer;
  }
}
