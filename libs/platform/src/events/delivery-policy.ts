import type { ConsumerOptions } from '../messaging/message-bus.js';

/** How long a publish with a given event id is remembered, so a relay that republishes is de-duplicated. */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;

const DAY_MS = 86_400_000;

/** How long a published event is kept once nothing still has to handle it: the outbox's published rows, the embedded log's events. */
export const EVENT_RETENTION_MS = 7 * DAY_MS;

/**
 * How long a consumer's inbox records (the events it handled) are kept, and so how long JetStream keeps an
 * event: no event a durable can be handed is older than the records that make a second delivery harmless.
 */
export const INBOX_RETENTION_MS = 2 * EVENT_RETENTION_MS;

/** How long a dead letter waits to be looked at (an alert fires on the first) before it is deleted. */
export const DEAD_LETTER_RETENTION_MS = 90 * DAY_MS;

/** Default time a handler has before its event is delivered again (JetStream's default too). */
export const DEFAULT_ACK_WAIT_MS = 30_000;

/** Delay before the next delivery after the `deliveryCount`-th failed; the last back-off value repeats. */
export function retryDelayMs(options: Pick<ConsumerOptions, 'backoffMs'>, deliveryCount: number): number {
  const { backoffMs } = options;
  if (backoffMs.length === 0) return 0;
  return backoffMs[Math.min(deliveryCount, backoffMs.length) - 1] ?? backoffMs[0];
}

/** Fails fast on options that would make a consumer loop forever or never match. */
export function assertConsumerOptions(options: ConsumerOptions): void {
  if (!/^[A-Za-z0-9_-]+$/.test(options.durable)) throw new Error(`invalid durable consumer name '${options.durable}'`);
  if (options.types.length === 0) throw new Error(`consumer ${options.durable} subscribes to no event type`);
  for (const type of options.types) {
    const tokens = type.split('.');
    const valid = tokens.every((t, i) => /^[A-Za-z0-9_-]+$/.test(t) || t === '*' || (t === '>' && i === tokens.length - 1));
    if (!valid) throw new Error(`consumer ${options.durable}: invalid event type pattern '${type}'`);
  }
  if (!Number.isInteger(options.maxDeliver) || options.maxDeliver < 1) throw new Error(`consumer ${options.durable}: maxDeliver must be >= 1`);
  if (options.backoffMs.some((ms) => !(ms >= 0))) throw new Error(`consumer ${options.durable}: back-off values must be >= 0`);
}

/** Error text for a dead letter: the handler's message, never a stack. */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
