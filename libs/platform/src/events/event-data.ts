import { type CloudEvent, type DtoClass, validateInput } from '@lms/contracts';

/**
 * An event's data checked against its payload class (a consumer validates what it receives, never casts
 * it): invalid data throws, so the delivery fails, is retried and ends dead-lettered for operations.
 */
export async function eventData<T extends object>(cls: DtoClass, event: CloudEvent): Promise<T> {
  const result = await validateInput<T>(cls, event.data, 'data');
  if (!result.ok) throw new Error(`invalid ${event.type} event ${event.id}: ${result.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  return result.value;
}
