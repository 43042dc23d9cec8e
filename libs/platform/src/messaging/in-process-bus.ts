import { InProcessEventLog } from '../events/in-process-event-log.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { NoRespondersError, RequestTimeoutError, type EventLog, type MessageBus, type Subscription } from './message-bus.js';
import { subjectMatches } from './subject-match.js';

// Payloads travel as JSON text, so caller and handler never share an object, as over a wire.
const encode = (value: unknown): string | undefined => JSON.stringify(value);
const decode = (text: string | undefined): unknown => (text === undefined ? undefined : JSON.parse(text));

interface Server {
  subject: string;
  /** Kept for parity with NATS; in one process a request simply goes to one server of the subject. */
  queue: string;
  handler: (payload: unknown, fromThisProcess: boolean) => Promise<unknown>;
}

interface Listener {
  subject: string;
  handler: (payload: unknown) => void;
}

export class BusClosedError extends Error {
  constructor() {
    super('message bus is closed');
  }
}

/**
 * The NATS core semantics in memory, for all-in-one mode without a NATS server: one bus per namespace
 * carries the requests of every deployable of the process.
 */
export class InProcessBus implements MessageBus {
  readonly kind = 'in-process' as const;
  readonly events: EventLog;
  readonly namespace: string;
  private readonly logger: Logger;
  private servers: Server[] = [];
  private listeners: Listener[] = [];
  private readonly nextServer = new Map<string, number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private closing?: Promise<void>;
  /** Owners sharing this bus (see `retain`); the last `close` really closes. */
  private owners = 1;

  /** Closes the event log with the bus, when the bus owns it. */
  private readonly closeEvents?: () => Promise<void>;

  /**
   * `events`: the log the bus carries, with how to close it (the product's Postgres log). Without it, an
   * in-memory log that keeps nothing across restarts: unit tests only.
   */
  constructor(options: { namespace?: string; logger?: Logger; events?: { log: EventLog; close(): Promise<void> } } = {}) {
    this.namespace = options.namespace ?? '';
    this.logger = options.logger ?? createLogger('silent');
    this.events = options.events?.log ?? new InProcessEventLog(this.namespace);
    this.closeEvents = options.events?.close;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** One more owner: `close` must then be called once more before the bus really closes. */
  retain(): this {
    if (this.closed) throw new BusClosedError();
    this.owners++;
    return this;
  }

  /** Every request stays in this process, so `overWire` (what would leave it) is never asked for. */
  request(subject: string, payload: unknown, timeoutMs: number, _overWire?: () => unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new BusClosedError());
    const candidates = this.servers.filter((s) => subjectMatches(s.subject, subject));
    if (candidates.length === 0) return Promise.reject(new NoRespondersError(subject));
    const turn = this.nextServer.get(subject) ?? 0;
    this.nextServer.set(subject, turn + 1);
    const server = candidates[turn % candidates.length];

    let sent: string | undefined;
    try {
      sent = encode(payload);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new RequestTimeoutError(subject, timeoutMs)), timeoutMs);
      // The handler starts on a later tick, like a message arriving from the network.
      const handled = Promise.resolve()
        .then(() => server.handler(decode(sent), true))
        .then((result) => decode(encode(result)));
      this.track(handled);
      handled.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  serve(subject: string, queue: string, handler: (payload: unknown, fromThisProcess: boolean) => Promise<unknown>): Subscription {
    if (this.closed) throw new BusClosedError();
    const server: Server = { subject, queue, handler };
    this.servers.push(server);
    return {
      unsubscribe: async () => {
        this.servers = this.servers.filter((s) => s !== server);
      },
    };
  }

  broadcast(subject: string, payload: unknown): void {
    if (this.closed) return;
    const sent = encode(payload);
    for (const listener of this.listeners.filter((l) => subjectMatches(l.subject, subject))) {
      setImmediate(() => {
        try {
          listener.handler(decode(sent));
        } catch (err) {
          this.logger.error({ err, subject }, 'broadcast listener failed');
        }
      });
    }
  }

  listen(subject: string, handler: (payload: unknown) => void): Subscription {
    if (this.closed) throw new BusClosedError();
    const listener: Listener = { subject, handler };
    this.listeners.push(listener);
    return {
      unsubscribe: async () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new BusClosedError();
  }

  /**
   * Releases one owner; the last one stops new requests and waits for the handlers still running.
   * Calls after the last owner closed it wait for the same shutdown.
   */
  async close(): Promise<void> {
    if (this.closing) return this.closing;
    if (--this.owners > 0) return;
    this.closed = true;
    this.closing = this.drain();
    return this.closing;
  }

  private async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.servers = [];
    this.listeners = [];
    await this.closeEvents?.();
  }

  private track(handled: Promise<unknown>): void {
    const settled = handled.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
  }
}
