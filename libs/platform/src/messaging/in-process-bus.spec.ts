import { BusClosedError, InProcessBus } from './in-process-bus.js';
import { subjectMatches } from './subject-match.js';
import { NoRespondersError, RequestTimeoutError } from './message-bus.js';

/** A promise released from outside, to hold a handler in flight. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Settles after pending callbacks of the current turn have run. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('InProcessBus', () => {
  let bus: InProcessBus;

  beforeEach(() => {
    bus = new InProcessBus({ namespace: 'unit' });
  });

  afterEach(async () => {
    await bus.close();
  });

  it('answers a request with the handler result', async () => {
    bus.serve('svc.things.get', 'svc', async (payload) => ({ got: payload }));
    await expect(bus.request('svc.things.get', { id: 7 }, 1000)).resolves.toEqual({ got: { id: 7 } });
  });

  it('carries every request as it is, from this process: what overWire gives is never sent', async () => {
    bus.serve('svc.things.where', 'svc', async (payload, fromThisProcess) => ({ payload, fromThisProcess }));
    let asked = 0;
    const overWire = () => ({ sealed: ++asked });
    await expect(bus.request('svc.things.where', { id: 7 }, 1000, overWire)).resolves.toEqual({ payload: { id: 7 }, fromThisProcess: true });
    expect(asked).toBe(0);
  });

  it('hands requests round-robin to the subscribers of a subject, one per request', async () => {
    const seen: string[] = [];
    bus.serve('svc.things.get', 'svc', async () => seen.push('a'));
    bus.serve('svc.things.get', 'svc', async () => seen.push('b'));
    for (let i = 0; i < 4; i++) await bus.request('svc.things.get', {}, 1000);
    expect(seen).toEqual(['a', 'b', 'a', 'b']);
  });

  it('rejects with NoRespondersError when nobody serves the subject', async () => {
    bus.serve('svc.other', 'svc', async () => 'other');
    await expect(bus.request('svc.things.get', {}, 60_000)).rejects.toBeInstanceOf(NoRespondersError);
  });

  it('stops serving after unsubscribe', async () => {
    const sub = bus.serve('svc.things.get', 'svc', async () => 'ok');
    await sub.unsubscribe();
    await expect(bus.request('svc.things.get', {}, 1000)).rejects.toBeInstanceOf(NoRespondersError);
  });

  it('rejects with RequestTimeoutError when the handler does not answer in time', async () => {
    const held = gate();
    bus.serve('svc.slow', 'svc', async () => {
      await held.opened;
      return 'late';
    });
    const error = await bus.request('svc.slow', {}, 20).catch((err: unknown) => err);
    held.open();
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ subject: 'svc.slow', timeoutMs: 20 });
  });

  it('rejects with the error a handler throws', async () => {
    const failure = new Error('boom');
    bus.serve('svc.fail', 'svc', async () => {
      throw failure;
    });
    await expect(bus.request('svc.fail', {}, 1000)).rejects.toBe(failure);
  });

  it('copies payloads and replies through JSON, sharing no object between caller and handler', async () => {
    const kept: unknown[] = [];
    const stored = { list: [1] };
    bus.serve('svc.copy', 'svc', async (payload) => {
      kept.push(payload);
      (payload as { nested: { n: number } }).nested.n = 99;
      return stored;
    });
    const sent = { nested: { n: 1 }, at: new Date('2024-01-02T03:04:05.000Z') };
    const answer = (await bus.request('svc.copy', sent, 1000)) as { list: number[] };

    expect(sent.nested.n).toBe(1);
    expect(kept[0]).toEqual({ nested: { n: 99 }, at: '2024-01-02T03:04:05.000Z' });
    expect(answer).toEqual(stored);
    expect(answer).not.toBe(stored);
    answer.list.push(2);
    expect(stored.list).toEqual([1]);
  });

  it('delivers broadcasts to every matching listener, asynchronously', async () => {
    const got: string[] = [];
    bus.listen('cache.tokens.revoked', () => got.push('exact'));
    bus.listen('cache.*.revoked', () => got.push('star'));
    bus.listen('cache.>', () => got.push('tail'));
    bus.listen('cache.users.*', () => got.push('other'));
    bus.broadcast('cache.tokens.revoked', { token: 't' });
    expect(got).toEqual([]);
    await tick();
    expect(got.sort()).toEqual(['exact', 'star', 'tail']);
  });

  it('gives every listener its own copy of a broadcast', async () => {
    const got: unknown[] = [];
    bus.listen('cache.x', (payload) => got.push(payload));
    bus.listen('cache.x', (payload) => got.push(payload));
    const sent = { id: 1 };
    bus.broadcast('cache.x', sent);
    await tick();
    expect(got).toEqual([sent, sent]);
    expect(got[0]).not.toBe(sent);
    expect(got[0]).not.toBe(got[1]);
  });

  it('serves wildcard subscriptions', async () => {
    bus.serve('svc.*.get', 'svc', async () => 'wild');
    await expect(bus.request('svc.things.get', {}, 1000)).resolves.toBe('wild');
  });

  it('waits for in-flight handlers on close, then rejects new requests', async () => {
    const held = gate();
    bus.serve('svc.slow', 'svc', async () => {
      await held.opened;
      return 'done';
    });
    const pending = bus.request('svc.slow', {}, 60_000);
    await tick();
    let closed = false;
    const closing = bus.close().then(() => (closed = true));
    await tick();
    expect(closed).toBe(false);
    await expect(bus.request('svc.slow', {}, 1000)).rejects.toBeInstanceOf(BusClosedError);

    held.open();
    await expect(pending).resolves.toBe('done');
    await closing;
    expect(closed).toBe(true);
    await expect(bus.ping()).rejects.toBeInstanceOf(BusClosedError);
  });

  it('closes only when every owner has released it', async () => {
    bus.serve('svc.things.get', 'svc', async () => 'ok');
    bus.retain();
    await bus.close();
    await expect(bus.request('svc.things.get', {}, 1000)).resolves.toBe('ok');
    await expect(bus.ping()).resolves.toBeUndefined();
    await bus.close();
    expect(bus.isClosed).toBe(true);
    await expect(bus.request('svc.things.get', {}, 1000)).rejects.toBeInstanceOf(BusClosedError);
  });
});

describe('subjectMatches', () => {
  it.each([
    ['a.b.c', 'a.b.c', true],
    ['a.b.c', 'a.b', false],
    ['a.b', 'a.b.c', false],
    ['a.*.c', 'a.b.c', true],
    ['a.*', 'a.b.c', false],
    ['*.b.*', 'a.b.c', true],
    ['a.>', 'a.b', true],
    ['a.>', 'a.b.c.d', true],
    ['a.>', 'a', false],
    ['>', 'a.b', true],
    ['a.>.c', 'a.b.c', false],
    ['x.*', 'a.b', false],
  ])('%s against %s is %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});
