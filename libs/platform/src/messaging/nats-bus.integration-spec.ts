import { testNatsUrl, uniqueName } from '@lms/testing';
import { NoRespondersError, RequestTimeoutError, RequestTooLargeError } from './message-bus.js';
import { NatsBus } from './nats-bus.js';

const url = testNatsUrl();

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

// Without a NATS server (TEST_NATS_URL empty) there is nothing to test here: the in-process bus has its own specs.
(url ? describe : describe.skip)('NatsBus against a real NATS server', () => {
  const namespace = uniqueName('ns');
  const buses: NatsBus[] = [];
  const open = async (ns = namespace, name = 'test') => {
    const bus = await NatsBus.connect(url!, { namespace: ns, name });
    buses.push(bus);
    return bus;
  };
  let client: NatsBus;
  let server: NatsBus;

  beforeAll(async () => {
    client = await open(namespace, 'client');
    server = await open(namespace, 'server');
  });

  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
  });

  it('answers a ping', async () => {
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it('carries a request and its JSON reply between two connections', async () => {
    const sub = server.serve('svc.things.get', 'svc', async (payload) => ({ echo: payload, from: 'server' }));
    await server.ping();
    await expect(client.request('svc.things.get', { id: 7, tags: ['a'] }, 5000)).resolves.toEqual({
      echo: { id: 7, tags: ['a'] },
      from: 'server',
    });
    await sub.unsubscribe();
  });

  it('writes the requests of one event-loop turn to the socket together', async () => {
    const sub = server.serve('svc.things.batch', 'svc', async (payload) => payload);
    await server.ping();
    await client.request('svc.things.batch', 0, 5000); // the reply subscription is in place
    const socket = (client.connection as unknown as { protocol: { transport: { socket: { write: (...args: unknown[]) => boolean } } } }).protocol.transport.socket;
    const write = socket.write;
    let writes = 0;
    socket.write = function (this: unknown, ...args: unknown[]) {
      writes += 1;
      return write.apply(this, args);
    };
    try {
      // Twenty callbacks of one turn, as twenty HTTP requests read in one poll of the gateway would be.
      const answers = await new Promise<Promise<unknown>[]>((resolve) => {
        const started: Promise<unknown>[] = [];
        for (let i = 1; i <= 20; i++) setImmediate(() => started.push(client.request('svc.things.batch', i, 5000)) === 20 && resolve(started));
      }).then((started) => Promise.all(started));
      expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      // One write for the twenty (a second only if the server's keep-alive PING is answered meanwhile).
      expect(writes).toBeLessThanOrEqual(2);
    } finally {
      socket.write = write;
      await sub.unsubscribe();
    }
  });

  it('carries an undefined payload and reply', async () => {
    let received: unknown = 'unset';
    const sub = server.serve('svc.things.touch', 'svc', async (payload) => {
      received = payload;
      return undefined;
    });
    await server.ping();
    await expect(client.request('svc.things.touch', undefined, 5000)).resolves.toBeUndefined();
    expect(received).toBeUndefined();
    await sub.unsubscribe();
  });

  it('rejects with NoRespondersError when nobody serves the subject, well before the timeout', async () => {
    // A 60 s timeout: were no-responders not detected, this would end as a RequestTimeoutError (and a jest timeout).
    await expect(client.request('svc.nobody.home', {}, 60_000)).rejects.toBeInstanceOf(NoRespondersError);
  });

  it('rejects with RequestTimeoutError when the handler answers too late', async () => {
    const held = gate();
    const sub = server.serve('svc.slow', 'svc', async () => {
      await held.opened;
      return 'late';
    });
    await server.ping();
    const error = await client.request('svc.slow', {}, 100).catch((err: unknown) => err);
    held.open();
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ subject: 'svc.slow', timeoutMs: 100 });
    await sub.unsubscribe();
  });

  it('fails the request at once when a handler throws, without leaking its message', async () => {
    const sub = server.serve('svc.broken', 'svc', async () => {
      throw new Error('secret internals');
    });
    await server.ping();
    const error = await client.request('svc.broken', {}, 60_000).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RequestTimeoutError);
    expect((error as Error).message).not.toContain('secret');
    await sub.unsubscribe();
  });

  it('sends what overWire gives only when the request leaves the process, and tells the handler where it came from', async () => {
    const seen: Array<{ payload: unknown; fromThisProcess: boolean }> = [];
    const sub = server.serve('svc.things.where', 'svc', async (payload, fromThisProcess) => {
      seen.push({ payload, fromThisProcess });
      return fromThisProcess;
    });
    await server.ping();
    let wrapped = 0;
    const overWire = () => {
      wrapped += 1;
      return { sealed: true };
    };
    await expect(client.request('svc.things.where', { plain: true }, 5000, overWire)).resolves.toBe(false);
    await expect(server.request('svc.things.where', { plain: true }, 5000, overWire)).resolves.toBe(true);
    expect(seen).toEqual([
      { payload: { sealed: true }, fromThisProcess: false },
      { payload: { plain: true }, fromThisProcess: true },
    ]);
    expect(wrapped).toBe(1);
    await sub.unsubscribe();
  });

  it('answers a request to a subject the same connection serves in-process, as NATS would answer it', async () => {
    let received: { tags: string[] } | undefined;
    const held = gate();
    const subs = [
      server.serve('svc.local.echo', 'svc', async (payload) => {
        received = payload as { tags: string[] };
        received.tags.push('changed by the handler');
        return { echo: payload };
      }),
      server.serve('svc.local.broken', 'svc', async () => {
        throw new Error('secret internals');
      }),
      server.serve('svc.local.slow', 'svc', async () => {
        await held.opened;
        return 'late';
      }),
      server.serve('svc.local.*', 'svc', async () => 'wildcard'),
    ];
    const sent = { tags: ['a'] };
    // 1 ms would be plenty for a local answer; a trip through the server would not be needed.
    const reply = (await server.request('svc.local.echo', sent, 5000)) as { echo: { tags: string[] } };
    expect(reply).toEqual({ echo: { tags: ['a', 'changed by the handler'] } });
    expect(sent).toEqual({ tags: ['a'] });
    expect(reply.echo).not.toBe(received);
    const broken = await server.request('svc.local.broken', {}, 60_000).catch((err: unknown) => err);
    expect(broken).toBeInstanceOf(Error);
    expect((broken as Error).message).not.toContain('secret');
    await expect(server.request('svc.local.slow', {}, 50)).rejects.toMatchObject({ subject: 'svc.local.slow', timeoutMs: 50 });
    held.open();
    await expect(server.request('svc.local.other', {}, 5000)).resolves.toBe('wildcard');
    await Promise.all(subs.map((sub) => sub.unsubscribe()));
    // Unsubscribed: the request goes to NATS, where nobody serves it any more.
    await expect(server.request('svc.local.echo', {}, 60_000)).rejects.toBeInstanceOf(NoRespondersError);
  });

  it('carries many concurrent requests over one reply subscription, each reply to its own request', async () => {
    const sub = server.serve('svc.many', 'svc', async (payload) => payload);
    await server.ping();
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => client.request('svc.many', { i }, 5000)));
    expect(replies).toEqual(Array.from({ length: 200 }, (_, i) => ({ i })));
    await sub.unsubscribe();
  });

  it('carries replies larger than the server takes in one message, in parts, each to its own request', async () => {
    // Three times the server's largest message, of text that is not the same in every part; a small reply beside them.
    const big = (tag: string) => ({ tag, rows: Array.from({ length: 30_000 }, (_, i) => ({ i, text: `${tag}-${i}`.padEnd(100, '.') })) });
    const sub = server.serve('svc.big', 'svc', async (payload) => ((payload as { tag: string }).tag === 'small' ? { tag: 'small' } : big((payload as { tag: string }).tag)));
    await server.ping();
    const [a, small, b] = await Promise.all(['a', 'small', 'b'].map((tag) => client.request('svc.big', { tag }, 10_000)));
    expect(JSON.stringify(a).length).toBeGreaterThan(3 * 1024 * 1024);
    expect(a).toEqual(big('a'));
    expect(b).toEqual(big('b'));
    expect(small).toEqual({ tag: 'small' });
    await sub.unsubscribe();
  });

  it('refuses at once a request larger than the server takes in one message, without sending it', async () => {
    const asked: unknown[] = [];
    const sub = server.serve('svc.big_request', 'svc', async (payload) => void asked.push(payload));
    await server.ping();
    const started = Date.now();
    await expect(client.request('svc.big_request', { text: 'x'.repeat(1024 * 1024) }, 5000)).rejects.toBeInstanceOf(RequestTooLargeError);
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(client.request('svc.big_request', { text: 'x'.repeat(1000) }, 5000)).resolves.toBeUndefined();
    expect(asked).toHaveLength(1);
    await sub.unsubscribe();
  });

  it('splits requests between servers of one queue group, each request answered once', async () => {
    const other = await open(namespace, 'server-2');
    const counts = { a: 0, b: 0 };
    const subs = [
      server.serve('svc.split', 'svc', async () => ++counts.a && 'a'),
      other.serve('svc.split', 'svc', async () => ++counts.b && 'b'),
    ];
    await Promise.all([server.ping(), other.ping()]);

    const answers = await Promise.all(Array.from({ length: 40 }, () => client.request('svc.split', {}, 5000)));
    expect(counts.a + counts.b).toBe(40);
    expect(counts.a).toBeGreaterThan(0);
    expect(counts.b).toBeGreaterThan(0);
    expect(answers.filter((a) => a === 'a')).toHaveLength(counts.a);
    await Promise.all(subs.map((s) => s.unsubscribe()));
  });

  it('keeps namespaces apart: a bus in another namespace does not answer', async () => {
    const stranger = await open(uniqueName('ns'), 'stranger');
    const sub = stranger.serve('svc.isolated', 'svc', async () => 'wrong namespace');
    await stranger.ping();
    await expect(client.request('svc.isolated', {}, 5000)).rejects.toBeInstanceOf(NoRespondersError);

    const own = server.serve('svc.isolated', 'svc', async () => 'own namespace');
    await server.ping();
    await expect(client.request('svc.isolated', {}, 5000)).resolves.toBe('own namespace');
    await Promise.all([sub.unsubscribe(), own.unsubscribe()]);
  });

  it('broadcasts to every listener of the namespace, wildcards included, and to no other namespace', async () => {
    const stranger = await open(uniqueName('ns'), 'stranger-listener');
    const got: string[] = [];
    const waiters: Array<{ count: number; resolve: () => void }> = [];
    const arrived = (count: number) => new Promise<void>((resolve) => waiters.push({ count, resolve }));
    const note = (who: string) => (payload: unknown) => {
      got.push(`${who}:${(payload as { token: string }).token}`);
      for (const w of waiters) if (got.length >= w.count) w.resolve();
    };
    const subs = [
      server.listen('cache.tokens.revoked', note('exact')),
      client.listen('cache.*.revoked', note('wild')),
      stranger.listen('cache.>', note('stranger')),
    ];
    await Promise.all([server.ping(), client.ping(), stranger.ping()]);

    client.broadcast('cache.tokens.revoked', { token: 't1' });
    await arrived(2);
    // The server routed t1 before it saw t2, so the stranger's own t2 arriving proves t1 never came to it.
    stranger.broadcast('cache.tokens.revoked', { token: 't2' });
    await arrived(3);
    expect(got.sort()).toEqual(['exact:t1', 'stranger:t2', 'wild:t1']);
    await Promise.all(subs.map((s) => s.unsubscribe()));
  });

  it('lets in-flight handlers reply before close finishes', async () => {
    const closing = await open(namespace, 'closing');
    const held = gate();
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    closing.serve('svc.drain', 'svc', async () => {
      started();
      await held.opened;
      return 'finished';
    });
    await closing.ping();

    const pending = client.request('svc.drain', {}, 3000);
    await handlerStarted;
    const closed = closing.close();
    // Give a close that did not wait ample round trips to shut the connection before the handler answers.
    for (let i = 0; i < 10; i++) await client.ping();
    held.open();
    await expect(pending).resolves.toBe('finished');
    await closed;
    await expect(client.request('svc.drain', {}, 5000)).rejects.toBeInstanceOf(NoRespondersError);
  });
});
