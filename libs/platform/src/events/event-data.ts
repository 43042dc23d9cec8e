import { type CloudEvent, type DtoClass, validateInput } from '@lms/contracts';

/**
 * An event's data checked against its payload class (a consumer validates what it receives, never casts
 * it): invalid data throws, so the delivery fails, is retried and ends dead-lettered for operations.
 * Fields the class does not know are dropped, not refused: a producer may add one (docs/deployment.md, "Event data").
 */
export async function eventData<T extends object>(cls: DtoClass, event: CloudEvent): Promise<T> {
  const result = await validateInput<T>(cls, event.data, 'data', 'drop');
  if (!result.ok) throw new Error(`invalid ${event.type} event ${event.id}: ${result.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  return result.value;
}

/**
 * One positive integer of an event's data, for a consumer that needs an id and not the rest of the payload
 * (another service's business); anything else throws, like invalid data above.
 */
export function eventDataId(event: CloudEvent, key: string): number {
  const value = (event.data as Record<string, unknown> | null)?.[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new Error(`invalid ${event.type} event ${event.id}: data.${key} must be a positive integer`);
  return value;
}

/** The services' consumers' retry: five deliveries, backing off 0.1, 0.5 and 2 s, then the dead-letter stream. */
export const CONSUMER_RETRY = { maxDeliver: 5, backoffMs: [100, 500, 2000] };

/**
 * The retry of a consumer whose handling asks another service: ten deliveries over about five minutes, so
 * its events outlast that service's restart, or a rollout that starts this consumer before it.
 */
export const DEPENDENT_CONSUMER_RETRY = { maxDeliver: 10, backoffMs: [100, 500, 2_000, 10_000, 30_000, 60_000] };
