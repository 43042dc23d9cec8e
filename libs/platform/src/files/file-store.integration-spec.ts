import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { deleteNamespaceStreams, testNatsUrl, uniqueName } from '@lms/testing';
import type { FileStore, ListedFile } from './file-store.js';
import { FolderFileStore } from './folder-file-store.js';
import { ObjectFileStore } from './object-file-store.js';

const natsUrl = testNatsUrl();

const read = async (store: FileStore, key: string) => {
  const opened = await store.open(key);
  const chunks: Buffer[] = [];
  for await (const chunk of opened!.stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
};

const listed = async (store: FileStore, prefix: string): Promise<ListedFile[]> => {
  const files: ListedFile[] = [];
  for await (const file of store.list(prefix)) files.push(file);
  return files.sort((a, b) => a.key.localeCompare(b.key));
};

/** What each store keeps beside its files, and how a writer killed mid-put leaves its write. */
interface Backend {
  store: FileStore;
  /** A put whose process died before it finished. */
  killedPut(key: string): Promise<void>;
  /** Everything the store holds, as it holds it (paths, or stream subjects). */
  held(): Promise<string[]>;
  close(): Promise<void>;
}

async function folderBackend(): Promise<Backend> {
  const root = await mkdtemp(join(tmpdir(), 'files-'));
  const walk = async (dir: string): Promise<string[]> => {
    const entries = await readdir(join(root, dir), { withFileTypes: true });
    const nested = await Promise.all(entries.map(async (e) => (e.isDirectory() ? [`${dir}${e.name}/`, ...(await walk(`${dir}${e.name}/`))] : [`${dir}${e.name}`])));
    return nested.flat();
  };
  return {
    store: new FolderFileStore(root),
    killedPut: async (key) => {
      await mkdir(join(root, key, '..'), { recursive: true });
      await writeFile(join(root, `${key}.0f3c.partial`), randomBytes(1000));
    },
    held: async () => (await walk('')).sort(),
    close: () => rm(root, { recursive: true, force: true }),
  };
}

async function objectBackend(): Promise<Backend> {
  const namespace = uniqueName('leftovers');
  const nc: NatsConnection = await connect({ servers: natsUrl });
  const store = new ObjectFileStore(nc, namespace);
  const stream = `OBJ_${store.bucket}`;
  return {
    store,
    // The client publishes an object's chunks, then its metadata: a writer killed between leaves chunks no metadata names.
    killedPut: async () => {
      const subject = `$O.${store.bucket}.C.killedput${randomBytes(8).toString('hex')}`;
      for (let i = 0; i < 3; i += 1) await jetstream(nc).publish(subject, randomBytes(1000));
    },
    held: async () => {
      const info = await (await jetstreamManager(nc)).streams.info(stream, { subjects_filter: '>' });
      return Object.keys(info.state.subjects ?? {}).sort();
    },
    close: async () => {
      await nc.close();
      await deleteNamespaceStreams(natsUrl!, namespace);
    },
  };
}

const backends: [string, () => Promise<Backend>][] = [['FolderFileStore', folderBackend], ...(natsUrl ? [['ObjectFileStore', objectBackend] as [string, () => Promise<Backend>]] : [])];

describe.each(backends)('%s: listing, and what killed writers and deletes leave', (_name, make) => {
  let backend: Backend;
  beforeEach(async () => {
    backend = await make();
  });
  afterEach(() => backend.close());

  it('lists the files under a prefix with their sizes and times, not deleted ones nor partial writes', async () => {
    const { store } = backend;
    const started = Date.now();
    await store.put('jobs/a/1/dump.zip', [randomBytes(300)]);
    await store.put('jobs/b/2/users.csv', [randomBytes(20)]);
    await store.put('jobs/c/1/gone.csv', [randomBytes(5)]);
    await store.put('uploads/x', [randomBytes(7)]);
    await store.delete('jobs/c/1/gone.csv');
    await backend.killedPut('jobs/d/1/dump.zip');

    const jobs = await listed(store, 'jobs/');
    expect(jobs.map(({ key, size }) => ({ key, size }))).toEqual([
      { key: 'jobs/a/1/dump.zip', size: 300 },
      { key: 'jobs/b/2/users.csv', size: 20 },
    ]);
    for (const file of jobs) {
      expect(file.modifiedAt.getTime()).toBeGreaterThanOrEqual(started - 2000);
      expect(file.modifiedAt.getTime()).toBeLessThanOrEqual(Date.now() + 2000);
    }
    expect((await listed(store, 'uploads/')).map((f) => f.key)).toEqual(['uploads/x']);
    expect((await listed(store, '')).length).toBe(3);
    expect(await listed(store, 'nothing/')).toEqual([]);
  });

  it('removes a killed put and a deleted file’s remains once older than the cut-off, and nothing a file needs', async () => {
    const { store } = backend;
    const kept = randomBytes(3 * 128 * 1024 + 5);
    await store.put('jobs/a/1/dump.zip', [kept]);
    await store.put('jobs/b/1/users.csv', [randomBytes(64)]);
    await store.put('jobs/b/1/users.csv', [randomBytes(65)]); // replaced: its first write's remains go with the put
    await store.put('jobs/c/1/gone.csv', [randomBytes(5)]);
    await store.delete('jobs/c/1/gone.csv');
    await backend.killedPut('jobs/d/1/dump.zip');
    const before = await backend.held();

    // Everything is recent: a write under way looks like this, so nothing goes.
    expect(await store.removeLeftovers(new Date(Date.now() - 3_600_000))).toBe(0);
    expect(await backend.held()).toEqual(before);

    const removed = await store.removeLeftovers(new Date(Date.now() + 60_000));
    expect(removed).toBeGreaterThanOrEqual(2); // the killed put, and the deleted file's remains
    const after = await backend.held();
    expect(after.length).toBe(before.length - removed);
    expect(after.some((held) => /killedput|\.partial$/.test(held))).toBe(false);
    expect((await read(store, 'jobs/a/1/dump.zip')).equals(kept)).toBe(true);
    expect((await read(store, 'jobs/b/1/users.csv')).length).toBe(65);
    expect((await listed(store, '')).map((f) => f.key)).toEqual(['jobs/a/1/dump.zip', 'jobs/b/1/users.csv']);
    // Nothing left to remove, and the store still takes files where the removed ones were.
    const again = await store.removeLeftovers(new Date(Date.now() + 60_000));
    await store.put('jobs/c/1/gone.csv', [randomBytes(5)]);
    await store.put('jobs/d/1/dump.zip', [randomBytes(6)]);
    expect((await listed(store, 'jobs/')).map((f) => f.size)).toEqual([kept.length, 65, 5, 6]);
    expect(again).toBe(0);
  });
});
