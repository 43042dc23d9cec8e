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
