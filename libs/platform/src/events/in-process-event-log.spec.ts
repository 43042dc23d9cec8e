import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@lms/contracts';
import { testEvent } from '@lms/testing';
import { type ConsumerOptions, LeaseLost, type Subscription } from '../messaging/message-bus.js';
import { subjectMatches } from '../messaging/subject-match.js';
import { InProcessEventLog } from './in-process-event-log.js';

const event = (type: string, data: unknown = {}, id = randomUUID()): CloudEvent => testEvent(type, data, { id });

const options = (durable: string, types: string[], more: Partial<ConsumerOptions> = {}): ConsumerOptions => ({
  durable,
  types,
  maxDeliver: 3,
  backoffMs: [10, 20],
  ...more,
});

/** Polls until `check` holds; fails with `what` after the deadline instead of hanging. */
async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 4_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('subjectMatches on event types', () => {
  it.each([
    ['identity.user.deleted', 'identity.user.deleted', true],
    ['identity.user.*', 'identity.user.deleted', true],
    ['identity.*.deleted', 'identity.user.deleted', true],
    ['identity.user.*', 'identity.user', false],
    ['identity.user.*', 'identity.user.deleted.v2', false],
    ['identity.>', 'identity.user.deleted', true],
    ['identity.>', 'identity', false],
    ['>', 'identity.user.deleted', true],
    ['identity.user.deleted', 'identity.user.created', false],
  ])('%s matches %s: %s', (pattern, type, expected) => {
    expect(subjectMatches(pattern, type)).toBe(expected);
  });
});

describe('InProcessEventLog', () => {
  let log: InProcessEventLog;
  const subscriptions: Subscription[] = [];
  const consume = async (...args: Parameters<InProcessEventLog['consume']>) => {
    const sub = await log.consume(...args);
    subscriptions.push(sub);
    return sub;
  };

  beforeEach(() => {
    log = new InProcessEventLog('unit');
  });

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((s) => s.unsubscribe()));
  });

  it('drops a second publish of the same event id and delivers it once', async () => {
    const first = event('a.thing.happened', { n: 1 });
    const seen: string[] = [];
    await consume(options('dedup', ['a.>']), async (e) => {
      seen.push(e.id);
    });

    expect(await log.publish(first)).toEqual({ duplicate: false });
    expect(await log.publish({ ...first, data: { n: 2 } })).toEqual({ duplicate: true });
    const barrier = event('a.barrier.reached');
    await log.publish(barrier);

    await waitUntil('the barrier is delivered', () => seen.includes(barrier.id));
    expect(seen).toEqual([first.id, barrier.id]);
  });

  it('delivers only the types a consumer asked for, with * and > wildcards', async () => {
    const byStar: string[] = [];
    const byTail: string[] = [];
    await consume(options('star', ['catalog.course.*']), async (e) => {
      byStar.push(e.type);
    });
    await consume(options('tail', ['catalog.>']), async (e) => {
      byTail.push(e.type);
    });

    for (const type of ['catalog.course.published', 'catalog.course.published.v2', 'catalog.enrollment.completed', 'identity.user.deleted']) {
      await log.publish(event(type));
    }

    await waitUntil('the > consumer has its three events', () => byTail.length === 3);
    await waitUntil('the * consumer has its event', () => byStar.length === 1);
    expect(byTail).toEqual(['catalog.course.published', 'catalog.course.published.v2', 'catalog.enrollment.completed']);
    expect(byStar).toEqual(['catalog.course.published']);
  });

  it('resumes a durable where it stopped, and starts a new durable at the beginning', async () => {
    const first: string[] = [];
    const sub = await log.consume(options('cursor', ['x.y.z']), async (e) => {
      first.push(e.id);
    });
    const e1 = event('x.y.z');
    await log.publish(e1);
    await waitUntil('e1 is delivered', () => first.length === 1);
    await sub.unsubscribe();

    const e2 = event('x.y.z');
    const e3 = event('x.y.z');
    await log.publish(e2);
    await log.publish(e3);

    const resumed: string[] = [];
    await consume(options('cursor', ['x.y.z']), async (e) => {
      resumed.push(e.id);
    });
    const fresh: string[] = [];
    await consume(options('another', ['x.y.z']), async (e) => {
      fresh.push(e.id);
    });

    await waitUntil('the resumed durable has e2 and e3', () => resumed.length === 2);
    await waitUntil('the new durable has all three', () => fresh.length === 3);
    expect(resumed).toEqual([e2.id, e3.id]);
    expect(fresh).toEqual([e1.id, e2.id, e3.id]);
  });

  it('splits events between subscriptions sharing a durable, each event to one of them', async () => {
    const a: string[] = [];
    const b: string[] = [];
    await consume(options('shared', ['work.item.created']), async (e) => {
      a.push(e.id);
    });
    await consume(options('shared', ['work.item.created']), async (e) => {
      b.push(e.id);
    });

    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const e = event('work.item.created', { i });
      ids.push(e.id);
      await log.publish(e);
    }

    await waitUntil('all ten are handled', () => a.length + b.length === 10);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect([...a, ...b].sort()).toEqual([...ids].sort());
  });

  it('retries with back-off, then dead-letters, without holding up the events behind', async () => {
    const attempts: number[] = [];
    const good: string[] = [];
    let badAttemptsWhenGoodHandled = -1;
    await consume(options('retry', ['job.*.requested'], { maxDeliver: 3, backoffMs: [200, 400] }), async (e, info) => {
      if (e.type === 'job.bad.requested') {
        attempts.push(info.deliveryCount);
        throw new Error('cannot do this job');
      }
      badAttemptsWhenGoodHandled = attempts.length;
      good.push(e.id);
    });

    const bad = event('job.bad.requested');
    const later = event('job.good.requested');
    await log.publish(bad);
    await log.publish(later);

    await waitUntil('the bad event is dead-lettered', async () => (await log.deadLetters('retry')).length === 1);
    expect(good).toEqual([later.id]);
    expect(badAttemptsWhenGoodHandled).toBeLessThan(3);
    expect(attempts).toEqual([1, 2, 3]);
    expect(await log.deadLetters('retry')).toEqual([{ durable: 'retry', event: bad, error: 'cannot do this job', deliveries: 3 }]);
    expect(await log.deadLetters('other')).toEqual([]);
  });

  it('neither retries nor dead-letters a delivery whose handler lost its lease (nothing else holds it here)', async () => {
    const deliveries: number[] = [];
    await consume(options('lease', ['l.>'], { maxDeliver: 1 }), async (_e, info) => {
      deliveries.push(info.deliveryCount);
      throw new LeaseLost('a later delivery owns this work');
    });
    await log.publish(event('l.thing.happened'));
    const barrier = event('l.barrier.reached');
    await log.publish(barrier);
    await waitUntil('both are delivered', () => deliveries.length === 2);
    // A failure on its only delivery would be dead-lettered before the event behind it is delivered.
    expect(deliveries).toEqual([1, 1]);
    expect(await log.deadLetters('lease')).toEqual([]);
  });

  it('dead-letters a malformed event at once without calling the handler', async () => {
    const handled: string[] = [];
    await consume(options('strict', ['m.>']), async (e) => {
      handled.push(e.id);
    });
    const { accountid: _dropped, ...malformed } = event('m.bad.shape');
    await log.publish(malformed as CloudEvent);
    const ok = event('m.good.shape');
    await log.publish(ok);

    await waitUntil('the good event is handled', () => handled.length === 1);
    expect(handled).toEqual([ok.id]);
    const dead = await log.deadLetters('strict');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ durable: 'strict', error: 'malformed event: missing accountid', deliveries: 1 });
  });

  it('waits for the handler in progress when unsubscribing', async () => {
    let release: () => void = () => undefined;
    let finished = false;
    let started = false;
    const sub = await log.consume(options('slow', ['s.t.u']), async () => {
      started = true;
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    });
    await log.publish(event('s.t.u'));
    await waitUntil('the handler started', () => started);

    // Released only later: an unsubscribe that did not wait would resolve before the handler finished.
    setTimeout(() => release(), 50);
    await sub.unsubscribe();
    expect(finished).toBe(true);
  });

  it('rejects consumer options that cannot work', async () => {
    await expect(log.consume(options('bad.name', ['a.b']), async () => undefined)).rejects.toThrow('invalid durable');
    await expect(log.consume(options('nomax', ['a.b'], { maxDeliver: 0 }), async () => undefined)).rejects.toThrow('maxDeliver');
    await expect(log.consume(options('badtype', ['a.>.b']), async () => undefined)).rejects.toThrow('invalid event type');
  });
});
