import {
  connect,
  headers,
  RequestError,
  TimeoutError,
  type Msg,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from '@nats-io/transport-node';
import { JetStreamEventLog } from '../events/jetstream-event-log.js';
import { createLogger, type Logger } from '../observability/logger.js';
import type { NatsCredentials } from '../config/config.js';
import { inboxPrefixOf } from './nats-access.js';
import { NoRespondersError, RequestTimeoutError, type EventLog, type MessageBus, type Subscription } from './message-bus.js';

/** Set on a reply when the serving handler threw, so the caller fails at once instead of timing out. */
const HANDLER_FAILED_HEADER = 'Lms-Handler-Failed';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (value: unknown): Uint8Array => {
  const text = JSON.stringify(value);
  return text === undefined ? new Uint8Array() : encoder.encode(text);
};
const decode = (data: Uint8Array): unknown => (data.length === 0 ? undefined : JSON.parse(decoder.decode(data)));

export interface NatsBusOptions {
  /** Prefix of every subject and stream; empty for none. */
  namespace: string;
  /** Connection name, shown by the server's monitoring. */
  name: string;
  /** The deployable's NATS user; replies to it then come under its own inbox prefix, which only it may read. */
  credentials?: NatsCredentials;
  logger?: Logger;
}

/** The message bus over a NATS server: core request/reply and pub/sub, JetStream for events. */
export class NatsBus implements MessageBus {
  readonly kind = 'nats' as const;
  readonly events: EventLog;
  private readonly subscriptions = new Set<NatsSubscription>();
  private readonly inFlight = new Set<Promise<void>>();
  private closing?: Promise<void>;

  private constructor(
    private readonly nc: NatsConnection,
    readonly namespace: string,
    private readonly logger: Logger,
  ) {
    this.events = new JetStreamEventLog(nc, namespace, logger);
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
    return new NatsBus(nc, options.namespace, logger);
  }

  /** The NATS connection, for components that need more than the bus (object store). */
  get connection(): NatsConnection {
    return this.nc;
  }

  async request(subject: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    let msg: Msg;
    try {
      msg = await this.nc.request(this.subject(subject), encode(payload), { timeout: timeoutMs });
    } catch (err) {
      if (err instanceof TimeoutError) throw new RequestTimeoutError(subject, timeoutMs);
      if (err instanceof RequestError && err.isNoResponders()) throw new NoRespondersError(subject);
      throw err;
    }
    if (msg.headers?.has(HANDLER_FAILED_HEADER)) throw new Error(`handler for ${subject} failed`);
    return decode(msg.data);
  }

  serve(subject: string, queue: string, handler: (payload: unknown) => Promise<unknown>): Subscription {
    const sub = this.nc.subscribe(this.subject(subject), {
      queue,
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ err, subject }, 'subscription failed');
          return;
        }
        this.track(this.answer(subject, msg, handler));
      },
    });
    return this.remember(sub);
  }

  broadcast(subject: string, payload: unknown): void {
    this.nc.publish(this.subject(subject), encode(payload));
  }

  listen(subject: string, handler: (payload: unknown) => void): Subscription {
    const sub = this.nc.subscribe(this.subject(subject), {
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ err, subject }, 'subscription failed');
          return;
        }
        try {
          handler(decode(msg.data));
        } catch (error) {
          this.logger.error({ err: error, subject: msg.subject }, 'broadcast listener failed');
        }
      },
    });
    return this.remember(sub);
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
    if (this.nc.isClosed()) return;
    await Promise.allSettled([...this.subscriptions].map((sub) => sub.drain()));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.nc.drain();
  }

  private subject(subject: string): string {
    return this.namespace ? `${this.namespace}.${subject}` : subject;
  }

  private async answer(subject: string, msg: Msg, handler: (payload: unknown) => Promise<unknown>): Promise<void> {
    try {
      msg.respond(encode(await handler(decode(msg.data))));
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

  private remember(sub: NatsSubscription): Subscription {
    this.subscriptions.add(sub);
    void sub.closed.then(() => this.subscriptions.delete(sub));
    return {
      unsubscribe: async () => {
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
          break;
        case 'ldm':
          this.logger.warn({ server: status.server }, 'NATS server entering lame duck mode');
          break;
        case 'close':
          this.logger.info('NATS connection closed');
          break;
        default:
          break;
      }
    }
  }
}
