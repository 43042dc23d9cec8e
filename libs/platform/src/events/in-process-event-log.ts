import { AsyncLocalStorage } from 'node:async_hooks';
import type { CloudEvent } from '@lms/contracts';
import { type ConsumerOptions, type DeadLetter, type DeliveryInfo, type EventLog, LeaseLost, type Subscription } from '../messaging/message-bus.js';
import { decodeCloudEvent } from './cloud-event.js';
import { assertConsumerOptions, DUPLICATE_WINDOW_MS, errorMessage, retryDelayMs } from './delivery-policy.js';
import { subjectMatcher } from '../messaging/subject-match.js';

type Handler = (event: CloudEvent, info: DeliveryInfo) => Promise<void>;

/** One event on its way to a durable consumer, with the deliveries it had so far. */
interface Delivery {
  text: string;
  deliveries: number;
}

/** One subscription of a durable; it handles one event at a time, like a JetStream pull loop. */
interface Member {
  handler: Handler;
  busy: boolean;
  stopped: boolean;
  current?: Promise<void>;
}

/** A durable consumer: its cursor in the log and its retries outlive its subscriptions. */
interface Durable {
  name: string;
  options: ConsumerOptions;
  /** Whether an event type is one of `options.types`. */
  wants: (type: string) => boolean;
  /** Index in the log of the next event never delivered to this durable. */
  cursor: number;
  /** Retries whose back-off has passed, delivered before new events. */
  ready: Delivery[];
  members: Member[];
  /** Round-robin position, so subscriptions sharing the durable split the events. */
  turn: number;
}

/**
 * The JetStream event log's semantics in memory, for unit tests of the in-process bus (the product runs on
 * `PostgresEventLog` without a NATS server): de-duplication by event id within the window, durable consumers that resume at their cursor and
 * split events between subscriptions, NATS wildcards on types, retries with back-off, dead letters.
 *
 * NOT durable: the log, the cursors and the dead letters live in this process and are lost on restart.
 * `ackWaitMs` is ignored: a handler cannot outlive the process that would redeliver its event.
 */
export class InProcessEventLog implements EventLog {
  /** Events as JSON text, so handlers never share an object with the publisher, as over a wire. */
  private readonly log: string[] = [];
  /** Event id -> publish time, pruned past the duplicate window. */
  private readonly seen = new Map<string, number>();
  private readonly durables = new Map<string, Durable>();
  private readonly dead = new Map<string, DeadLetter[]>();
  /**
   * Handlers run in the async context the log was made in, as events arriving from a socket would: never in
   * the publisher's (a relay's open transaction) nor a failed delivery's, which the handler's
   * `db.transaction` would otherwise join.
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(readonly namespace = '') {}

  async ensureStreams(): Promise<void> {
    // Nothing to create: the log is this object.
  }

  async publish(event: CloudEvent): Promise<{ duplicate: boolean }> {
    const now = Date.now();
    for (const [id, at] of this.seen) {
      if (now - at < DUPLICATE_WINDOW_MS) break; // insertion order is publish order
      this.seen.delete(id);
    }
    if (this.seen.has(event.id)) return { duplicate: true };
    const text = JSON.stringify(event);
    this.seen.set(event.id, now);
    this.log.push(text);
    for (const durable of this.durables.values()) this.pump(durable);
    return { duplicate: false };
  }

  async consume(options: ConsumerOptions, handler: Handler): Promise<Subscription> {
    assertConsumerOptions(options);
    const wants = subjectMatcher(options.types);
    let durable = this.durables.get(options.durable);
    if (!durable) {
      // Like a new JetStream durable with deliver policy `all`: it starts at the beginning of the log.
      durable = { name: options.durable, options, wants, cursor: 0, ready: [], members: [], turn: 0 };
      this.durables.set(options.durable, durable);
    }
    // The latest subscription's settings win, like a consumer update.
    durable.options = options;
    durable.wants = wants;
    const member: Member = { handler, busy: false, stopped: false };
    durable.members.push(member);
    this.pump(durable);
    const owner = durable;
    return {
      unsubscribe: async () => {
        member.stopped = true;
        owner.members = owner.members.filter((m) => m !== member);
        await member.current;
      },
    };
  }

  async deadLetters(durable: string): Promise<DeadLetter[]> {
    return structuredClone(this.dead.get(durable) ?? []);
  }

  /** Hands ready events to idle subscriptions until either runs out. */
  private pump(durable: Durable): void {
    for (;;) {
      const member = this.idleMember(durable);
      if (!member) return;
      const next = durable.ready.shift() ?? this.nextNew(durable);
      if (!next) return;
      member.busy = true;
      member.current = this.detached(() => this.deliver(durable, member, next)).finally(() => {
        member.busy = false;
        member.current = undefined;
        this.pump(durable);
      });
    }
  }

  private idleMember(durable: Durable): Member | undefined {
    const count = durable.members.length;
    for (let i = 0; i < count; i++) {
      const member = durable.members[(durable.turn + i) % count];
      if (!member.busy && !member.stopped) {
        durable.turn = (durable.turn + i + 1) % count;
        return member;
      }
    }
    return undefined;
  }

  private nextNew(durable: Durable): Delivery | undefined {
    while (durable.cursor < this.log.length) {
      const text = this.log[durable.cursor++];
      const decoded = decodeCloudEvent(text);
      // Malformed entries reach every durable, to be dead-lettered there, as a JetStream consumer would.
      if ('error' in decoded || durable.wants(decoded.event.type)) {
        return { text, deliveries: 0 };
      }
    }
    return undefined;
  }

  private async deliver(durable: Durable, member: Member, delivery: Delivery): Promise<void> {
    // A later turn of the event loop, like a message arriving from the network.
    await new Promise<void>((resolve) => setImmediate(resolve));
    delivery.deliveries++;
    const decoded = decodeCloudEvent(delivery.text);
    if ('error' in decoded) {
      this.deadLetter(durable.name, JSON.parse(delivery.text) as CloudEvent, `malformed event: ${decoded.error}`, delivery.deliveries);
      return;
    }
    try {
      await member.handler(decoded.event, { deliveryCount: delivery.deliveries });
    } catch (err) {
      if (err instanceof LeaseLost) return; // no leases here: nothing else holds the event, so it is settled
      const { options } = durable;
      if (delivery.deliveries >= options.maxDeliver) {
        this.deadLetter(durable.name, decoded.event, errorMessage(err), delivery.deliveries);
        return;
      }
      // Only this event waits: the subscription moves on to the next one at once.
      const timer = setTimeout(() => {
        durable.ready.push(delivery);
        this.pump(durable);
      }, retryDelayMs(options, delivery.deliveries));
      timer.unref(); // a pending retry must not keep the process alive
    }
  }

  private deadLetter(durable: string, event: CloudEvent, error: string, deliveries: number): void {
    const list = this.dead.get(durable) ?? [];
    list.push({ durable, event, error, deliveries });
    this.dead.set(durable, list);
  }
}
