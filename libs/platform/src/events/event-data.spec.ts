import { UserEventData } from '@lms/contracts';
import { testEvent } from '@lms/testing';
import { CONSUMER_RETRY, DEPENDENT_CONSUMER_RETRY, eventData, eventDataId } from './event-data.js';
import { retryDelayMs } from './delivery-policy.js';

const event = (data: unknown) => testEvent('identity.user.deleted', data, { id: 'e-1' });

describe('eventData', () => {
  it('returns data its class accepts', async () => {
    await expect(eventData<UserEventData>(UserEventData, event({ user_id: 7, uid: 'ann' }))).resolves.toEqual({ user_id: 7, uid: 'ann' });
  });

  it('drops fields its class does not know, so a producer a release ahead can add one', async () => {
    const data = await eventData<UserEventData>(UserEventData, event({ user_id: 7, uid: 'ann', added_later: { x: 1 } }));
    expect(data).toEqual({ user_id: 7, uid: 'ann' });
    expect(data).not.toHaveProperty('added_later');
  });

  it('still throws on a known field that is invalid beside an unknown one', async () => {
    await expect(eventData(UserEventData, event({ user_id: 'seven', uid: 'ann', added_later: 1 }))).rejects.toThrow(/data\.user_id/);
  });

  it('throws on data its class refuses, naming the event and the field', async () => {
    await expect(eventData(UserEventData, event({ user_id: 0, uid: 'ann' }))).rejects.toThrow(/invalid identity\.user\.deleted event e-1: .*user_id/);
  });
});

describe('eventDataId', () => {
  it('returns a positive integer of the data', () => {
    expect(eventDataId(event({ id: 42, other: 'x' }), 'id')).toBe(42);
    expect(eventDataId(event({ group_id: 3, user_id: 9 }), 'user_id')).toBe(9);
  });

  it.each([[null], [{}], [{ id: 0 }], [{ id: -1 }], [{ id: 1.5 }], [{ id: '42' }], [{ id: 2 ** 53 }], [[42]]])('throws for data %j', (data) => {
    expect(() => eventDataId(event(data), 'id')).toThrow('invalid identity.user.deleted event e-1: data.id must be a positive integer');
  });
});

describe('consumer retry policies', () => {
  /** Seconds from the first delivery to the last one. */
  const windowOf = (policy: { maxDeliver: number; backoffMs: number[] }) =>
    Array.from({ length: policy.maxDeliver - 1 }, (_, i) => retryDelayMs(policy, i + 1)).reduce((a, b) => a + b, 0) / 1000;

  it("lets a consumer that asks another service outlast that service's restart (minutes), where the others give up in seconds", () => {
    expect(windowOf(CONSUMER_RETRY)).toBeLessThan(10);
    expect(windowOf(DEPENDENT_CONSUMER_RETRY)).toBeGreaterThan(240);
    expect(windowOf(DEPENDENT_CONSUMER_RETRY)).toBeLessThan(600);
  });
});
