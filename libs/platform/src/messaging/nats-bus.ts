import {
  connect,
  createInbox,
  headers,
  PermissionViolationError,
  type Msg,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from '@nats-io/transport-node';
import { JetStreamEventLog } from '../events/jetstream-event-log.js';
import { createLogger, type Logger } from '../observability/logger.js';
import type { NatsCredentials } from '../config/config.js';
import { inboxPrefixOf, REPLY_PARTS_MAX } from './nats-access.js';
import { RequestTimeoutError, RequestTooLargeError, type EventLog, type MessageBus, type Subscription } from './message-bus.js';
import { REPLY_PARTS_HEADER, ReplyInbox, type ReplyMessage } from './reply-inbox.js';
import { subjectMatches } from './subject-match.js';

/** NATS servers' largest message unless configured otherwise. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** Room a part of a reply leaves in a message for its headers. */
const PART_HEADROOM = 4096;

/** Set on a reply when the serving handler threw, so the caller fails at once instead of timing out. */
const HANDLER_FAILED_HEADER = 'Lms-Handler-Failed';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (value: unknown): Uint8Array => {
  const text = JSON.stringify(value);
  return text === undefined ? new Uint8Array() : encoder.encode(text);
};
const decode = (data: Uint8Array): unknown => (data.length === 0 ? undefined : JSON.parse(decoder.decode(data)));
/** What a reply would carry: the caller and the handler never share an object, as over the wire. */
const copy = (value: unknown): unknown => {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
};

type Handler = (payload: unknown, fromThisProcess: boolean) => Promise<unknown>;

/** The parts of the client's protocol handler (@nats-io/nats-core 3.x) that `coalesceWrites` replaces. */
interface ProtocolInternals {
  outbound: { length(): number; size(): number; fill(data: Uint8Array, ...more: Uint8Array[]): void };
  pendingLimit: number;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
  flushPending(): void;
}

/**
 * Sends what the connection has to send once per turn of the event loop (on `setImmediate`) instead of
 * once per microtask checkpoint. The client flushes after each checkpoint, and every request a server
 * takes arrives in its own I/O callback, so under load each message cost its own socket write (and a
 * wake-up of the NATS server): 28% of the gateway's CPU. The immediate runs right after the I/O callbacks
 * of the same turn, so a message waits for no more than those. A full buffer is still written at once,
 * and the client's own flush (PING) still writes everything. Answers whether it is in place: a client
 * whose internals differ keeps its own behaviour (nats-bus.integration-spec.ts notices).
 */
export function coalesceWrites(nc: NatsConnection): boolean {
  const protocol = (nc as unknown as { protocol?: Partial<ProtocolInternals> }).protocol;
  if (typeof protocol?.sendCommand !== 'function' || typeof protocol.flushPending !== 'function' || typeof protocol.outbound?.fill !== 'function') return false;
  const handler = protocol as ProtocolInternals;
  const flush = () => handler.flushPending();
  handler.sendCommand = (cmd, ...payloads) => {
    const idle = handler.outbound.length() === 0;
    handler.outbound.fill(typeof cmd === 'string' ? encoder.encode(cmd) : cmd, ...payloads);
    if (idle) setImmediate(flush);
    else if (handler.outbound.size() >= handler.pendingLimit) flush();
  };
  return true;
}

/** A reply's payload, or the handler's failure. */
const readReply = (msg: ReplyMessage, subject: string): unknown => {
  if (msg.headers?.has(HANDLER_FAILED_HEADER)) throw new Error(`handler for ${subject} failed`);
  return decode(msg.data);
};

export interface NatsBusOptions {
  /** Prefix of every subject and stream; empty for none. */
  namespace: string;
  /** Connection name, shown by the server's monitoring. */
  name: string;
  /** The deployable's NATS user; replies to it then come under its own inbox prefix, which only it may read. */
  credentials?: NatsCredentials;
  /** Copies of each stream the bus creates (the JetStream cluster's size); 1 when unset. */
  streamReplicas?: number;
  logger?: Logger;
}

/** The message bus over a NATS server: core request/reply and pub/sub, JetStream for events. */
/** Header naming the connection a broadcast came from (see `broadcast`). */
const ORIGIN_HEADER = 'Lms-Origin';

export class NatsBus implements MessageBus {
  readonly kind = 'nats' as const;
  readonly events: EventLog;
  private readonly subscriptions = new Set<NatsSubscription>();
  private readonly inFlight = new Set<Promise<void>>();
  private closing?: Promise<void>;
  /** Handlers this connection serves, by subject: a request to one of them is answered in this process. */
  private readonly local = new Map<string, Handler[]>();
  private localTurn = 0;
  /** Where replies to this connection's requests (and JetStream's publish acks) arrive. */
  private readonly replies: ReplyInbox;
  /** Broadcast listeners of this connection, by subject: a broadcast from here reaches them at once. */
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();
  /** Marks this connection's broadcasts, so the server's echo of one is not delivered a second time. */
  private readonly origin = createInbox('origin');

  private constructor(
    private readonly nc: NatsConnection,
    readonly namespace: string,
    private readonly logger: Logger,
    /** The prefix replies to this connection must carry (its NATS user's own), or the default. */
    inboxPrefix?: string,
    readonly streamReplicas = 1,
  ) {
    this.replies = new ReplyInbox(nc, inboxPrefix);
    this.events = new JetStreamEventLog(nc, namespace, logger, streamReplicas, this.replies);
    if (!coalesceWrites(nc)) logger.warn('NATS client internals changed: each message is written on its own');
    void this.watchStatus();
  }

  static async connect(url: string, options: NatsBusOptions): Promise<NatsBus> {
    const logger = options.logger ?? createLogger('silent');
    const nc = await connect({
      servers: url,
      name: options.name,
      ...(options.credentials ? { user: options.credentials.user, pass: options.credentials.pass, inboxPrefix: inboxPrefixOf(options.credentials.user) } : {}),
      // A service outlives NATS restarts: keep trying, the readiness probe reports the outage meanwhile.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      // The client would capture a stack trace on every request for its error messages: a large share of a
      // request's CPU. Our errors name the subject instead.
      noAsyncTraces: true,
    });
    logger.info({ server: nc.getServer(), namespace: options.namespace, user: options.credentials?.user }, 'connected to NATS');
    return new NatsBus(nc, options.namespace, logger, options.credentials ? inboxPrefixOf(options.credentials.user) : undefined, options.streamReplicas);
  }

  /** The NATS connection, for components that need more than the bus (object store). */
  get connection(): NatsConnection {
    return this.nc;
  }

  /**
   * A subject this same connection serves (the all-in-one, where one bus carries every deployable) is
   * answered in this process: the payload and the reply are copied through JSON as on the wire, the
   * handler runs on a later tick, and timeouts and failures answer as they would over NATS, without the
   * four socket writes and reads of a round trip through the server. Every other request goes over
   * NATS through the connection's ReplyInbox.
   */
  request(subject: string, payload: unknown, timeoutMs: number, overWire?: () => unknown): Promise<unknown> {
    const handlers = this.closing ? undefined : this.localHandlers(subject);
    if (handlers) return this.requestLocally(subject, handlers[this.localTurn++ % handlers.length], payload, timeoutMs);
    let data: Uint8Array;
    try {
      data = encode(overWire ? overWire() : payload);
    } catch (err) {
      return Promise.reject(err);
    }
    // Not split as a reply is: a queue group could hand the parts to different replicas.
    const max = this.maxPayload();
    if (data.length > max) return Promise.reject(new RequestTooLargeError(subject, data.length, max));
    return this.replies.request(this.subject(subject), subject, data, timeoutMs, readReply);
  }

  serve(subject: string, queue: string, handler: Handler): Subscription {
    const named = this.subject(subject);
    const handlers = this.local.get(named) ?? [];
    handlers.push(handler);
    this.local.set(named, handlers);
    const sub = this.nc.subscribe(named, {
      queue,
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ err, subject }, 'subscription failed');
          return;
        }
        this.track(this.answer(subject, msg, handler));
      },
    });
    void sub.closed.then(() => this.forgetLocal(named, handler));
    return this.remember(sub, () => this.forgetLocal(named, handler));
  }

  /**
   * To every listener: this connection's own at once (on a microtask), then the others through the server. Requests to this connection are answered in process (above), so a notice sent before a
   * reply (drop a deleted user's cached principal, then answer the deletion) must not reach a listener
   * here after that reply does, as it would going round through the server.
   */
  broadcast(subject: string, payload: unknown): void {
    const named = this.subject(subject);
    const data = encode(payload);
    for (const [pattern, listeners] of this.listeners) {
      // A microtask, not a call: a listener never runs inside the broadcaster's own code, yet ahead of any reply it sends next.
      if (pattern === named || subjectMatches(pattern, named)) for (const listener of listeners) queueMicrotask(() => this.deliver(listener, named, data));
    }
    const marked = headers();
    marked.set(ORIGIN_HEADER, this.origin);
    this.nc.publish(named, data, { headers: marked });
  }

  listen(subject: string, handler: (payload: unknown) => void): Subscription {
    const named = this.subject(subject);
    const listeners = this.listeners.get(named) ?? new Set();
    listeners.add(handler);
    this.listeners.set(named, listeners);
    const forget = () => listeners.delete(handler);
    const sub = this.nc.subscribe(named, {
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ err, subject }, 'subscription failed');
          return;
        }
        // Delivered already, by the broadcast itself.
        if (msg.headers?.get(ORIGIN_HEADER) === this.origin) return;
        this.deliver(handler, msg.subject, msg.data);
      },
    });
    void sub.closed.then(forget);
    return this.remember(sub, forget);
  }

  private deliver(handler: (payload: unknown) => void, subject: string, data: Uint8Array): void {
    try {
      handler(decode(data));
    } catch (error) {
      this.logger.error({ err: error, subject }, 'broadcast listener failed');
    }
  }

  async ping(): Promise<void> {
    await this.nc.flush();
  }

  /** Stops taking messages, waits for the handlers still running so their replies go out, then drains. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.local.clear();
    if (this.nc.isClosed()) return;
    await Promise.allSettled([...this.subscriptions].map((sub) => sub.drain()));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.nc.drain();
  }

  private subject(subject: string): string {
    return this.namespace ? `${this.namespace}.${subject}` : subject;
  }

  private async answer(subject: string, msg: Msg, handler: Handler): Promise<void> {
    try {
      this.respond(msg, encode(await handler(decode(msg.data), false)));
    } catch (err) {
      // Handlers are meant to answer errors as replies; one that throws still must not leave the caller waiting.
      this.logger.error({ err, subject }, 'request handler threw');
      const failed = headers();
      failed.set(HANDLER_FAILED_HEADER, 'true');
      try {
        msg.respond(new Uint8Array(), { headers: failed });
      } catch (error) {
        this.logger.error({ err: error, subject }, 'could not answer a request');
      }
    }
  }

  /** The largest message the server takes. */
  private maxPayload(): number {
    return this.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  }

  /** Answers `msg` with `data`, in parts when it is larger than the server takes in one message. */
  private respond(msg: Msg, data: Uint8Array): void {
    const size = this.maxPayload() - PART_HEADROOM;
    if (data.length <= size) {
      msg.respond(data);
      return;
    }
    const parts = Math.ceil(data.length / size);
    // The server would drop the parts past what it lets a service answer with (nats-access.ts): the caller would wait.
    if (parts > REPLY_PARTS_MAX) throw new Error(`a reply of ${data.length} bytes needs ${parts} messages, more than ${REPLY_PARTS_MAX}`);
    const marked = headers();
    marked.set(REPLY_PARTS_HEADER, String(parts));
    for (let i = 0; i < parts; i++) msg.respond(data.subarray(i * size, (i + 1) * size), { headers: marked });
  }

  private localHandlers(subject: string): Handler[] | undefined {
    if (this.local.size === 0) return undefined;
    const named = this.subject(subject);
    const exact = this.local.get(named);
    if (exact) return exact;
    for (const [pattern, handlers] of this.local) if (subjectMatches(pattern, named)) return handlers;
    return undefined;
  }

  private forgetLocal(named: string, handler: Handler): void {
    const handlers = this.local.get(named)?.filter((h) => h !== handler);
    if (handlers && handlers.length > 0) this.local.set(named, handlers);
    else this.local.delete(named);
  }

  private requestLocally(subject: string, handler: Handler, payload: unknown, timeoutMs: number): Promise<unknown> {
    let sent: unknown;
    try {
      sent = copy(payload);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new RequestTimeoutError(subject, timeoutMs)), timeoutMs);
      const handled = Promise.resolve()
        .then(() => handler(sent, true))
        .then(
          (result) => {
            clearTimeout(timer);
            resolve(copy(result));
          },
          (err: unknown) => {
            clearTimeout(timer);
            this.logger.error({ err, subject }, 'request handler threw');
            reject(new Error(`handler for ${subject} failed`));
          },
        );
      this.track(handled);
    });
  }

  private remember(sub: NatsSubscription, onUnsubscribe?: () => void): Subscription {
    this.subscriptions.add(sub);
    void sub.closed.then(() => this.subscriptions.delete(sub));
    return {
      unsubscribe: async () => {
        onUnsubscribe?.();
        if (!sub.isClosed()) await sub.drain();
      },
    };
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case 'disconnect':
        case 'reconnect':
          this.logger.warn({ server: status.server }, `NATS ${status.type}`);
          break;
        case 'reconnecting':
        case 'staleConnection':
          this.logger.warn(`NATS ${status.type}`);
          break;
        case 'error':
          this.logger.error({ err: status.error }, 'NATS error');
          // A request the server refused to carry fails now, not at its timeout.
          if (status.error instanceof PermissionViolationError && status.error.operation === 'publish') {
            this.replies.failSentTo(status.error.subject, status.error);
          }
          break;
        case 'ldm':
          this.logger.warn({ server: status.server }, 'NATS server entering lame duck mode');
          break;
        case 'close':
          this.logger.info('NATS connection closed');
          this.replies.failAll(new Error('NATS connection closed'));
          break;
        default:
          break;
      }
    }
  }
}
