import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { deleteNamespaceStreams, testNatsUrl, uniqueName } from '@lms/testing';
import { ObjectFileStore } from './object-file-store.js';

const natsUrl = testNatsUrl();
const describeWithNats = natsUrl ? describe : describe.skip;

const read = async (stream: AsyncIterable<Uint8Array>) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
};

describeWithNats('ObjectFileStore', () => {
  const namespace = uniqueName('objects');
  let nc: NatsConnection;
  let store: ObjectFileStore;

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
    store = new ObjectFileStore(nc, namespace);
  });
  afterAll(async () => {
    await nc?.close();
    await deleteNamespaceStreams(natsUrl!, namespace);
  });

  it('gives back what was put, byte for byte, an empty file included, and nothing for an unknown key', async () => {
    const bytes = randomBytes(3 * 128 * 1024 + 17);
    await store.put('round/trip.bin', [bytes.subarray(0, 1000), bytes.subarray(1000)]);
    const opened = await store.open('round/trip.bin');
    expect(opened?.size).toBe(bytes.length);
    expect((await read(opened!.stream)).equals(bytes)).toBe(true);
    await store.put('round/empty.bin', []);
    expect((await read((await store.open('round/empty.bin'))!.stream)).length).toBe(0);
    expect(await store.open('round/missing.bin')).toBeUndefined();
  });

  it('reads as the reader reads: a reader that stops after a chunk has not been sent the whole file', async () => {
    const bytes = randomBytes(64 * 128 * 1024);
    await store.put('slow/reader.bin', [bytes]);
    const opened = await store.open('slow/reader.bin');
    const stream = opened!.stream;
    const first = await new Promise<Buffer>((resolve) => stream.once('data', (chunk: Buffer) => (stream.pause(), resolve(chunk))));
    expect(first.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The server has sent the reader's consumer a few of the 64 chunks, not the whole object.
    const consumers = await (await jetstreamManager(nc)).consumers.list(store.bucket.replace(/^/, 'OBJ_')).next();
    const delivered = consumers.reduce((n, c) => n + c.delivered.consumer_seq, 0);
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(24);
    stream.destroy();
  });
});

describeWithNats('ObjectFileStore reads release what they hold', () => {
  const namespace = uniqueName('objreads');
  const WAIT_MS = 1_000;
  let nc: NatsConnection;
  let store: ObjectFileStore;
  const consumers = async () => (await (await jetstreamManager(nc)).consumers.list(`OBJ_${store.bucket}`).next()).length;
  const until = async (done: () => Promise<boolean>) => {
    for (let i = 0; i < 50 && !(await done()); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  };

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
    store = new ObjectFileStore(nc, namespace, true, 1, 'FILES', WAIT_MS);
    await store.put('warm/up.bin', [Buffer.from('x')]);
  });
  afterAll(async () => {
    await nc?.close();
    await deleteNamespaceStreams(natsUrl!, namespace);
  });

  it('leaves no consumer behind after a whole read, or after a reader that stopped half-way', async () => {
    await store.put('release/whole.bin', [randomBytes(5 * 128 * 1024)]);
    expect((await read((await store.open('release/whole.bin'))!.stream)).length).toBe(5 * 128 * 1024);
    await until(async () => (await consumers()) === 0);
    // The client's ordered consumer lingered five minutes after its close: one per read.
    expect(await consumers()).toBe(0);

    await store.put('release/half.bin', [randomBytes(32 * 128 * 1024)]);
    const { stream } = (await store.open('release/half.bin'))!;
    await new Promise((resolve) => stream.once('data', resolve));
    stream.destroy();
    await until(async () => (await consumers()) === 0);
    expect(await consumers()).toBe(0);
  });

  it('fails a read whose object is deleted under it once no chunk comes, instead of waiting for ever, and releases it', async () => {
    await store.put('release/deleted.bin', [randomBytes(64 * 128 * 1024)]);
    const { stream } = (await store.open('release/deleted.bin'))!;
    stream.pause();
    await new Promise((resolve) => stream.once('readable', resolve));
    await store.delete('release/deleted.bin');
    const failed = new Promise<Error>((resolve) => stream.once('error', resolve));
    stream.resume();
    expect((await failed).message).toMatch(/sent no chunk/);
    await until(async () => (await consumers()) === 0);
    expect(await consumers()).toBe(0);
  });
});
