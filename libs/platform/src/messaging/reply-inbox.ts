import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { NoRespondersError, RequestTimeoutError } from './message-bus.js';

/**
 * On each message of a reply sent in parts, how many there are: a reply larger than the server's largest
 * message (`max_payload`, 1 MiB by default) goes as consecutive messages to the same reply subject, which
 * NATS delivers in the order one connection sent them.
 */
export const REPLY_PARTS_HEADER = 'Lms-Reply-Parts';

/** What a request's reader gets: the reply's payload (its parts joined) and headers. */
export type ReplyMessage = Pick<Msg, 'data' | 'headers'>;

interface Waiting {
  /** The subject as sent (namespaced), to match a publish refused by the server. */
  sent: string;
  /** The subject errors name. */
  subject: string;
  read(msg: ReplyMessage, subject: string): unknown;
  /** The parts of a reply too large for one message received so far (`REPLY_PARTS_HEADER`). */
  parts?: Uint8Array[];
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
  request<T>(sent: string, subject: string, data: Uint8Array, timeoutMs: number, read: (msg: ReplyMessage, subject: string) => T, headers?: MsgHdrs): Promise<T> {
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
    const parts = Number(msg.headers?.get(REPLY_PARTS_HEADER) || 1);
    let whole: ReplyMessage = msg;
    if (parts > 1) {
      (waiting.parts ??= []).push(msg.data.slice());
      if (waiting.parts.length < parts) return;
      whole = { data: Buffer.concat(waiting.parts), headers: msg.headers };
    }
    let value: unknown;
    try {
      value = waiting.read(whole, waiting.subject);
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
