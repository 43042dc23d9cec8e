import { AsyncLocalStorage } from 'node:async_hooks';
import type { CloudEvent } from '@lms/contracts';
import { eventSubject } from '@lms/contracts';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  StorageType,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StreamConfig,
} from '@nats-io/jetstream';
import { headers, nanos, type NatsConnection } from '@nats-io/transport-node';
import { ReplyInbox, type ReplyMessage } from '../messaging/reply-inbox.js';
import { type ConsumerOptions, type DeadLetter, type DeliveryInfo, type EventLog, LeaseLost, type Subscription } from '../messaging/message-bus.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { decodeCloudEvent } from './cloud-event.js';
import { assertConsumerOptions, DEAD_LETTER_RETENTION_MS, DEFAULT_ACK_WAIT_MS, DUPLICATE_WINDOW_MS, errorMessage, INBOX_RETENTION_MS, retryDelayMs } from './delivery-policy.js';
import { coveringSubject, subjectMatcher } from '../messaging/subject-match.js';
import { streamPrefix } from '../messaging/nats-access.js';

type Handler = (event: CloudEvent, info: DeliveryInfo) => Promise<void>;

/** Messages a consumer holds ahead of its handler; few, so a stopping replica leaves little to hand back. */
const PULL_BATCH = 16;
/** Pause before a consume loop that failed (server restart, consumer deleted) starts again. */
const RESTART_DELAY_MS = 1_000;


const isApiError = (err: unknown, code: number) => err instanceof JetStreamApiError && err.code === code;

/** How long a publish waits for the stream's acknowledgement (the client's own default). */
const PUBLISH_ACK_TIMEOUT_MS = 5_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A stream's answer to a publish, as the client would read it: its API error thrown, `duplicate` when the id was seen. */
const readPublishAck = (msg: ReplyMessage): { duplicate: boolean } => {
  const ack = JSON.parse(decoder.decode(msg.data)) as { stream?: string; duplicate?: boolean; error?: ConstructorParameters<typeof JetStreamApiError>[0] };
  if (ack.error) throw new JetStreamApiError(ack.error);
  if (!ack.stream) throw new Error('invalid JetStream publish acknowledgement');
  return { duplicate: ack.duplicate === true };
};

/** `2.9.10` -> true when at least `2.10`: multiple filter subjects per consumer came with 2.10. */
const supportsFilterSubjects = (version: string | undefined): boolean => {
  const [major = 0, minor = 0] = (version ?? '').split('.').map((n) => Number.parseInt(n, 10));
  return major > 2 || (major === 2 && minor >= 10);
};

/**
 * Domain events on JetStream (design §5). Events go to `<ns>.events.<type>` in the stream `<NS>_EVENTS`
 * (file storage, 2-minute de-duplication window on the event id); events a consumer gave up on go to
 * `<ns>.dlq.<durable>` in `<NS>_DEAD_LETTERS`, where they stay inspectable.
 *
 * Consumers are durable pull consumers with explicit acks. A failing event is nak'ed with a delay, so the
 * events behind it keep flowing while it waits for its retry.
 */
export class JetStreamEventLog implements EventLog {
  readonly eventsStream: string;
  readonly deadLetterStream: string;
  private readonly subjectPrefix: string;
  private readonly js: JetStreamClient;
  private readonly logger: Logger;
  private manager?: Promise<JetStreamManager>;
  private streamsReady?: Promise<void>;
  /** Consume loops run in the context the log was made in, so handlers never join a caller's transaction. */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(
    private readonly nc: NatsConnection,
    readonly namespace = '',
    logger?: Logger,
    /** Copies of each stream: the JetStream cluster's size (NATS_STREAM_REPLICAS). */
    private readonly replicas = 1,
    /** Where publish acknowledgements arrive: the bus's own inbox, shared with its requests. */
    private readonly replies = new ReplyInbox(nc),
  ) {
    this.subjectPrefix = namespace ? `${namespace}.` : '';
    this.eventsStream = `${streamPrefix(namespace)}EVENTS`;
    this.deadLetterStream = `${streamPrefix(namespace)}DEAD_LETTERS`;
    this.js = jetstream(nc);
    this.logger = logger ?? createLogger('silent');
  }

  /** Idempotent and memoised; a failed attempt is retried by the next call. */
  ensureStreams(): Promise<void> {
    this.streamsReady ??= this.createStreams().catch((err: unknown) => {
      this.streamsReady = undefined;
      throw err;
    });
    return this.streamsReady;
  }

  async publish(event: CloudEvent): Promise<{ duplicate: boolean }> {
    await this.ensureStreams();
    // What the client's `js.publish(subject, data, { msgID })` sends, through the bus's reply inbox (see ReplyInbox).
    const subject = this.eventSubjectOf(event.type);
    const id = headers();
    id.set('Nats-Msg-Id', event.id);
    return this.replies.request(subject, subject, encoder.encode(JSON.stringify(event)), PUBLISH_ACK_TIMEOUT_MS, readPublishAck, id);
  }

  async consume(options: ConsumerOptions, handler: Handler): Promise<Subscription> {
    assertConsumerOptions(options);
    await this.ensureStreams();
    await this.upsertConsumer(options);
    // Before server 2.10 a consumer of several types may be handed others too: they are skipped by subject, undecoded.
    const wants = subjectMatcher(options.types.map((t) => this.eventSubjectOf(t)));

    let stopping = false;
    let messages: ConsumerMessages | undefined;
    let wake: () => void = () => undefined;
    const loop = this.detached(async () => {
      while (!stopping) {
        try {
          const consumer = await this.js.consumers.get(this.eventsStream, options.durable);
          messages = await consumer.consume({ max_messages: options.prefetch ?? PULL_BATCH });
          // close() settles only once the iterator reaches its end, so it is never awaited before the loop.
          if (stopping) void messages.close();
          for await (const msg of messages) {
            // Pulled but not started when asked to stop: hand it back at once for another replica.
            if (stopping) msg.nak();
            else if (!wants(msg.subject)) msg.ack();
            else await this.handle(msg, options, handler);
          }
        } catch (err) {
          if (!stopping) this.logger.warn({ err, durable: options.durable }, 'event consumer stopped; restarting');
        }
        if (stopping || this.nc.isClosed() || this.nc.isDraining()) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, RESTART_DELAY_MS).unref();
        });
        if (!stopping) await this.upsertConsumer(options).catch((err: unknown) => this.logger.warn({ err }, 'cannot recreate consumer'));
      }
    });

    return {
      unsubscribe: async () => {
        stopping = true;
        wake();
        void messages?.close();
        await loop; // the handler in progress finishes and acks first
      },
    };
  }

  async deadLetters(durable: string): Promise<DeadLetter[]> {
    await this.ensureStreams();
    const subject = this.deadLetterSubject(durable);
    const jsm = await this.jsm();
    const info = await jsm.streams.info(this.deadLetterStream, { subjects_filter: subject });
    const count = info.state.subjects?.[subject] ?? 0;
    if (count === 0) return [];
    // An ordered consumer reads the subject from the start; nothing is acked, the records stay.
    const reader = await this.js.consumers.get(this.deadLetterStream, { filter_subjects: subject });
    const letters: DeadLetter[] = [];
    try {
      while (letters.length < count) {
        const msg = await reader.next({ expires: 5_000 });
        if (!msg) break;
        letters.push(msg.json<DeadLetter>());
      }
    } finally {
      await reader.delete().catch(() => undefined);
    }
    return letters;
  }

  private async handle(msg: JsMsg, options: ConsumerOptions, handler: Handler): Promise<void> {
    const deliveryCount = msg.info.deliveryCount;
    const decoded = decodeCloudEvent(msg.string());
    if ('error' in decoded) {
      // Retrying cannot fix a malformed message: dead-letter it on first sight.
      await this.giveUp(msg, options, rawPayload(msg), `malformed event: ${decoded.error}`, deliveryCount);
      return;
    }
    const { event } = decoded;
    if (deliveryCount > options.maxDeliver) {
      // The server allows one delivery more than the handler gets, so an event whose last try crashed
      // or timed out is dead-lettered rather than dropped silently.
      await this.giveUp(msg, options, event, `not acknowledged after ${options.maxDeliver} deliveries (handler crashed or timed out)`, deliveryCount);
      return;
    }
    const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    // A slow handler keeps its claim, so the event is not handed to another replica meanwhile.
    const keepAlive = setInterval(() => {
      try {
        msg.working();
      } catch {
        // The connection is gone: the server redelivers the event after the ack wait.
      }
    }, Math.max(ackWaitMs / 2, 100));
    try {
      await handler(event, { deliveryCount });
      msg.ack();
    } catch (err) {
      const log = { err, durable: options.durable, eventId: event.id, type: event.type, deliveryCount };
      if (err instanceof LeaseLost) {
        this.logger.warn(log, 'event handler lost its lease; the later delivery settles the event');
      } else if (deliveryCount >= options.maxDeliver) {
        await this.giveUp(msg, options, event, errorMessage(err), deliveryCount);
      } else {
        this.logger.warn(log, 'event handler failed; will retry');
        msg.nak(retryDelayMs(options, deliveryCount));
      }
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** Records the event in the dead-letter stream, then terminates it; if recording fails, retries later. */
  private async giveUp(msg: JsMsg, options: ConsumerOptions, event: CloudEvent, error: string, deliveries: number): Promise<void> {
    const letter: DeadLetter = { durable: options.durable, event, error, deliveries };
    try {
      // De-duplicated by stream sequence: a redelivery after a lost `term` does not record it twice.
      await this.js.publish(this.deadLetterSubject(options.durable), JSON.stringify(letter), {
        msgID: `${options.durable}:${msg.info.stream}:${msg.seq}`,
      });
      this.logger.error({ durable: options.durable, eventId: event.id, type: event.type, deliveries, error }, 'event dead-lettered');
      msg.term();
    } catch (err) {
      this.logger.error({ err, durable: options.durable, eventId: event.id }, 'cannot dead-letter event; will retry');
      msg.nak(retryDelayMs(options, deliveries));
    }
  }

  /** Creates the durable consumer, or brings an existing one to these options. */
  private async upsertConsumer(options: ConsumerOptions): Promise<void> {
    const jsm = await this.jsm();
    const filter = this.filterOf(options.types);
    const wanted = {
      max_deliver: options.maxDeliver + 1,
      ack_wait: nanos(options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS),
      ...filter,
    };
    let existing: ConsumerConfig;
    try {
      existing = (await jsm.consumers.info(this.eventsStream, options.durable)).config;
    } catch (err) {
      if (!isApiError(err, JetStreamApiCodes.ConsumerNotFound)) throw err;
      await jsm.consumers.add(this.eventsStream, {
        durable_name: options.durable,
        ack_policy: AckPolicy.Explicit,
        // A new durable starts at the beginning: events published before its first deployment still reach it.
        deliver_policy: DeliverPolicy.All,
        max_ack_pending: 1_000,
        ...wanted,
      });
      return;
    }
    const same =
      existing.max_deliver === wanted.max_deliver &&
      existing.ack_wait === wanted.ack_wait &&
      (existing.filter_subject ?? '') === (filter.filter_subject ?? '') &&
      JSON.stringify(existing.filter_subjects ?? []) === JSON.stringify(filter.filter_subjects ?? []);
    if (!same) {
      try {
        await jsm.consumers.update(this.eventsStream, options.durable, wanted);
      } catch (err) {
        throw new Error(`cannot update event consumer ${options.durable} (changing its types needs a new durable name on this server)`, { cause: err });
      }
    }
  }

  /**
   * One type: a filter subject. Several: filter subjects (server 2.10+), else the narrowest one subject
   * covering them all (`events.catalog.enrollment.*`), which keeps the consumer's events in one order.
   */
  private filterOf(types: string[]): { filter_subject?: string; filter_subjects?: string[] } {
    const subjects = types.map((t) => this.eventSubjectOf(t));
    if (subjects.length === 1) return { filter_subject: subjects[0] };
    if (supportsFilterSubjects(this.nc.info?.version)) return { filter_subjects: subjects };
    return { filter_subject: coveringSubject(subjects) };
  }

  private async createStreams(): Promise<void> {
    const common = { storage: StorageType.File, duplicate_window: nanos(DUPLICATE_WINDOW_MS), num_replicas: this.replicas };
    // Limits, not interest: an event is kept whether handled or not, as long as an inbox record of it may be.
    await this.ensureStream({ name: this.eventsStream, subjects: [`${this.subjectPrefix}events.>`], max_age: nanos(INBOX_RETENTION_MS), ...common });
    await this.ensureStream({ name: this.deadLetterStream, subjects: [`${this.subjectPrefix}dlq.>`], max_age: nanos(DEAD_LETTER_RETENTION_MS), ...common });
  }

  private async ensureStream(config: Pick<StreamConfig, 'name' | 'subjects' | 'storage' | 'duplicate_window' | 'num_replicas' | 'max_age'>): Promise<void> {
    const jsm = await this.jsm();
    let existing: StreamConfig;
    try {
      existing = (await jsm.streams.info(config.name)).config;
    } catch (err) {
      if (!isApiError(err, JetStreamApiCodes.StreamNotFound)) throw err;
      // Replicas racing here are fine: adding an identical stream is idempotent.
      await jsm.streams.add(config);
      this.logger.info({ stream: config.name }, 'stream created');
      return;
    }
    // A changed replica count is applied too: JetStream copies or drops replicas online. An earlier version
    // set no max_age, so its streams kept every event forever.
    const { subjects, duplicate_window, num_replicas, max_age } = config;
    if (existing.duplicate_window !== duplicate_window || existing.subjects.join() !== subjects.join() || existing.num_replicas !== num_replicas || existing.max_age !== max_age) {
      await jsm.streams.update(config.name, { ...existing, subjects, duplicate_window, num_replicas, max_age });
    }
  }

  private jsm(): Promise<JetStreamManager> {
    this.manager ??= jetstreamManager(this.nc).catch((err: unknown) => {
      this.manager = undefined;
      throw err;
    });
    return this.manager;
  }

  private eventSubjectOf(type: string): string {
    return `${this.subjectPrefix}${eventSubject(type)}`;
  }

  private deadLetterSubject(durable: string): string {
    return `${this.subjectPrefix}dlq.${durable}`;
  }
}

/** What a malformed message carried, kept in its dead letter for inspection. */
function rawPayload(msg: JsMsg): CloudEvent {
  const text = msg.string();
  try {
    return JSON.parse(text) as CloudEvent;
  } catch {
    return text as unknown as CloudEvent;
  }
}
