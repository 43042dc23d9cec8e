import type { CloudEvent } from '@lms/contracts';

/**
 * Checks that a delivered payload is a CloudEvent before a handler sees it (the consumer validates what it
 * receives). Returns the event, or the reason it is not one.
 */
export function parseCloudEvent(value: unknown): { event: CloudEvent } | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'not a JSON object' };
  const candidate = value as Partial<Record<keyof CloudEvent, unknown>>;
  if (typeof candidate.id !== 'string' || candidate.id === '') return { error: 'missing id' };
  if (typeof candidate.type !== 'string' || candidate.type === '') return { error: 'missing type' };
  if (typeof candidate.accountid !== 'number' || !Number.isInteger(candidate.accountid)) return { error: 'missing accountid' };
  if (!('data' in candidate)) return { error: 'missing data' };
  return { event: value as CloudEvent };
}

/** Parses JSON text into a CloudEvent, or the reason it is not one. */
export function decodeCloudEvent(text: string): { event: CloudEvent } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'not JSON' };
  }
  return parseCloudEvent(value);
}
