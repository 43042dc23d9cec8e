import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { streamPrefix } from '../messaging/nats-access.js';
import { assertFileKey, type FileStore, type OpenedFile, type StoredFile } from './file-store.js';

/**
 * The two buckets: `FILES` (what the system keeps and serves: dumps, downloads, SCORM package files) and
 * `UPLOADS` (request bodies the gateway stages for a service, deleted once handled). Separate, so the edge
 * can stage uploads without being able to write a file the system serves.
 */
export type FileBucket = 'FILES' | 'UPLOADS';

/** A namespace's bucket: `FILES`, or `<NS>_FILES`; its stream is `OBJ_<bucket>`. */
export const filesBucket = (namespace: string, name: FileBucket = 'FILES'): string => `${streamPrefix(namespace)}${name}`;

/**
 * Files in the JetStream object store (with NATS_URL): chunked, file-backed, replicated as the server is.
 * A put under an existing name replaces the object, and its old chunks are purged.
 */
export class ObjectFileStore implements FileStore {
  readonly bucket: string;
  private store?: Promise<ObjectStore>;

  /** `writer`: creates the bucket when missing (jobs-worker); a reader (the gateway) only opens it. */
  constructor(
    private readonly nc: NatsConnection,
    namespace: string,
    private readonly writer = true,
    /** Copies JetStream keeps of the bucket (NATS_STREAM_REPLICAS). */
    private readonly replicas = 1,
    name: FileBucket = 'FILES',
  ) {
    this.bucket = filesBucket(namespace, name);
  }

  async put(key: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredFile> {
    assertFileKey(key);
    const store = await this.open$();
    const info = await store.put({ name: key }, Readable.toWeb(Readable.from(source)) as unknown as ReadableStream<Uint8Array>);
    return { key, size: info.size };
  }

  async open(key: string): Promise<OpenedFile | undefined> {
    assertFileKey(key);
    const store = await this.open$();
    const result = await store.get(key);
    if (!result) return undefined;
    const stream = Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>);
    // A corrupt or interrupted object fails the stream, so the client sees a cut response, not a short file.
    result.error.then(
      (err) => err && stream.destroy(err),
      (err: unknown) => stream.destroy(err instanceof Error ? err : new Error(String(err))),
    );
    return { key, size: result.info.size, stream };
  }

  async delete(key: string): Promise<void> {
    assertFileKey(key);
    const store = await this.open$();
    if (await store.info(key)) await store.delete(key);
  }

  private open$(): Promise<ObjectStore> {
    const objm = new Objm(this.nc);
    this.store ??= (this.writer ? objm.create(this.bucket, { storage: StorageType.File, replicas: this.replicas }) : objm.open(this.bucket, false)).catch((err: unknown) => {
      this.store = undefined;
      throw err;
    });
    return this.store;
  }
}
