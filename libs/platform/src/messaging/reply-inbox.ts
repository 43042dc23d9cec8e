import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { NoRespondersError, RequestTimeoutError } from './message-bus.js';

interface Waiting {
  /** The subject as sent (namespaced), to match a publish refused by the server. */
  sent: string;
  /** The subject errors name. */
  subject: string;
  read(msg: Msg, subject: string): unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * Request/reply over one subscription per connection (`<inbox>.*`) and a map of waiting requests, for the
 * bus's requests and JetStream's publish acknowledgements alike. The client's own request machinery builds
 * an error object with a stack trace for every request it completes (it rejects the settled promise with
 * "cancelled"): 3% of a create's CPU when every event's publish went through it.
 */
export class ReplyInbox {
  private readonly waiting = new Map<string, Waiting>();
  private inbox?: string;
  private nextToken = 0;

  /** `prefix`: the one replies to this connection must carry (its NATS user's own), or the client's default. */
  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix?: string,
  ) {}

  /**
   * Publishes `data` on `sent` and resolves with `read(reply, subject)` (a throw from `read` rejects). Rejects
   * with NoRespondersError when nobody listens on `sent` and RequestTimeoutError after `timeoutMs`; both
   * name `subject`.
   */
  request<T>(sent: string, subject: string, data: Uint8Array, timeoutMs: number, read: (msg: Msg, subject: string) => T, headers?: MsgHdrs): Promise<T> {
    const inbox = this.ensureInbox();
    const token = (this.nextToken++).toString(36);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(token);
        reject(new RequestTimeoutError(subject, timeoutMs));
      }, timeoutMs);
      this.waiting.set(token, { sent, subject, read, resolve: resolve as (value: unknown) => void, reject, timer });
      try {
        this.nc.publish(sent, data, { reply: `${inbox}.${token}`, ...(headers ? { headers } : {}) });
      } catch (err) {
        this.settle(token, err);
      }
    });
  }

  /** Fails the requests sent on `sent` (a publish the server refused). */
  failSentTo(sent: string, err: unknown): void {
    for (const [token, waiting] of this.waiting) if (waiting.sent === sent) this.settle(token, err);
  }

  /** Fails every request still waiting (the connection closed). */
  failAll(err: unknown): void {
    for (const token of [...this.waiting.keys()]) this.settle(token, err);
  }

  private ensureInbox(): string {
    if (this.inbox) return this.inbox;
    const inbox = createInbox(this.prefix);
    this.nc.subscribe(`${inbox}.*`, {
      callback: (err, msg) => {
        if (err) this.failAll(err);
        else this.onReply(msg.subject.slice(inbox.length + 1), msg);
      },
    });
    this.inbox = inbox;
    return inbox;
  }

  private onReply(token: string, msg: Msg): void {
    const waiting = this.waiting.get(token);
    if (!waiting) return;
    // The server answers a request nobody serves with an empty 503 status message.
    if (msg.data.length === 0 && msg.headers?.code === 503) return this.settle(token, new NoRespondersError(waiting.subject));
    let value: unknown;
    try {
      value = waiting.read(msg, waiting.subject);
    } catch (err) {
      return this.settle(token, err);
    }
    this.settle(token, undefined, value);
  }

  private settle(token: string, err: unknown, value?: unknown): void {
    const waiting = this.waiting.get(token);
    if (!waiting) return;
    this.waiting.delete(token);
    clearTimeout(waiting.timer);
    if (err) waiting.reject(err);
    else waiting.resolve(value);
  }
}
