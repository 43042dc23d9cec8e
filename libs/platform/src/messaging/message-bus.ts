import type { CloudEvent } from '@lms/contracts';

export interface Subscription {
  unsubscribe(): Promise<void>;
}

/** No service listens on the subject: the gateway answers 503. */
export class NoRespondersError extends Error {
  constructor(readonly subject: string) {
    super(`no responders for ${subject}`);
  }
}

/** The service did not answer in time: the gateway answers 504. */
export class RequestTimeoutError extends Error {
  constructor(readonly subject: string, readonly timeoutMs: number) {
    super(`no reply on ${subject} within ${timeoutMs} ms`);
  }
}

/** The request is larger than the NATS server takes in one message: the gateway answers 413. */
export class RequestTooLargeError extends Error {
  constructor(readonly subject: string, readonly bytes: number, readonly maxBytes: number) {
    super(`a request of ${bytes} bytes on ${subject} is larger than the ${maxBytes} bytes NATS takes`);
  }
}

/**
 * Thrown by an event handler that finds its work taken over by a later delivery of the same event: its
 * lease ran out while it worked (a stalled process), and the log handed the event to another replica. The
 * log then neither acknowledges nor retries this delivery and leaves the event to the later one. On
 * JetStream an acknowledgement names the event, not the delivery: this one's would settle the later
 * delivery too, which then could never come again should its own worker die.
 */
export class LeaseLost extends Error {}

export interface ConsumerOptions {
  /** Durable consumer name; replicas sharing it split the events. */
  durable: string;
  /** Event types (`identity.user.deleted`), wildcards allowed (`identity.user.*`). */
  types: string[];
  /** Deliveries before the event goes to the dead-letter stream. */
  maxDeliver: number;
  /** Delay before each redelivery after a failure; the last value repeats. */
  backoffMs: number[];
  ackWaitMs?: number;
  /**
   * Messages a replica takes ahead of its handler (JetStream; the Postgres log takes one at a time). 1 for
   * long work such as jobs: a replica busy with one then leaves the rest to idle replicas.
   */
  prefetch?: number;
}

export interface DeliveryInfo {
  deliveryCount: number;
}

export interface DeadLetter {
  durable: string;
  event: CloudEvent;
  error: string;
  deliveries: number;
}

/** JetStream (or its in-process twin): a durable, de-duplicating log of domain events. */
export interface EventLog {
  /** Creates the events and dead-letter streams if they are missing. */
  ensureStreams(): Promise<void>;
  /** Publishes with the event id as de-duplication id; `duplicate` when the stream had it already. */
  publish(event: CloudEvent): Promise<{ duplicate: boolean }>;
  /** Delivers matching events until unsubscribed; a throwing handler is retried with back-off, then dead-lettered. */
  consume(options: ConsumerOptions, handler: (event: CloudEvent, info: DeliveryInfo) => Promise<void>): Promise<Subscription>;
  /** Dead letters recorded for a durable consumer (operations and tests). */
  deadLetters(durable: string): Promise<DeadLetter[]>;
}

/**
 * Request/reply and events over NATS, or in-process when no NATS server is configured.
 * Every subject and stream name is prefixed with the bus namespace, so tests can share a server.
 */
export interface MessageBus {
  readonly kind: 'nats' | 'in-process';
  /**
   * Rejects with NoRespondersError or RequestTimeoutError; never hangs. `overWire` gives the payload to
   * send instead when the request leaves this process (the caller context's seal, which a request
   * answered in this process does without: it is on no wire anyone else can write to).
   */
  request(subject: string, payload: unknown, timeoutMs: number, overWire?: () => unknown): Promise<unknown>;
  /**
   * Answers requests on a subject; subscribers sharing `queue` split the load. The handler learns whether
   * the request came from this process (then it was never on the wire) or over the network.
   */
  serve(subject: string, queue: string, handler: (payload: unknown, fromThisProcess: boolean) => Promise<unknown>): Subscription;
  /** Fire-and-forget notice to every subscriber (cache invalidation); not durable. */
  broadcast(subject: string, payload: unknown): void;
  listen(subject: string, handler: (payload: unknown) => void): Subscription;
  readonly events: EventLog;
  /** Round trip to the server, for readiness. */
  ping(): Promise<void>;
  /** Stops taking messages, lets in-flight handlers finish, closes. */
  close(): Promise<void>;
}
