import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { type ObjectInfo, Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { streamPrefix } from '../messaging/nats-access.js';
import { scavengingEvery } from '../runtime/heap-memory.js';
import { assertFileKey, type FileStore, type ListedFile, type OpenedFile, type StoredFile } from './file-store.js';

/**
 * The two buckets: `FILES` (what the system keeps and serves: dumps, downloads, SCORM package files) and
 * `UPLOADS` (request bodies the gateway stages for a service, deleted once handled). Separate, so the edge
 * can stage uploads without being able to write a file the system serves.
 */
export type FileBucket = 'FILES' | 'UPLOADS';

/** A page of a stream's subjects, as `STREAM.INFO` with `subjects_filter` answers it. */
interface SubjectsPage {
  state?: { subjects?: Record<string, number> };
  limit?: number;
  error?: { description: string };
}

/** Chunks (128 KiB each) asked for ahead of the reader: what a reading stream holds at most. */
const CHUNKS_AHEAD = 8;
/** How long a read waits for the server's next chunk before it fails: an object deleted mid-read sends none. */
const CHUNK_WAIT_MS = 30_000;

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
    private readonly chunkWaitMs = CHUNK_WAIT_MS,
  ) {
    this.bucket = filesBucket(namespace, name);
  }

  async put(key: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredFile> {
    assertFileKey(key);
    const store = await this.open$();
    const info = await store.put({ name: key }, Readable.toWeb(Readable.from(scavengingEvery(source))) as unknown as ReadableStream<Uint8Array>);
    return { key, size: info.size };
  }

  async open(key: string): Promise<OpenedFile | undefined> {
    assertFileKey(key);
    const store = await this.open$();
    const info = await store.info(key);
    if (!info || info.deleted) return undefined;
    const closed = new AbortController();
    const stream = Readable.from(scavengingEvery(this.chunks(info, closed.signal)));
    // Destroyed while the read waits for a chunk, the generator cannot be returned from: the signal stops it.
    stream.once('close', () => closed.abort());
    return { key, size: info.size, stream };
  }

  /**
   * The object's chunks as its reader takes them. The client's own `get` pushes every chunk into its stream
   * as fast as the server sends them, whoever reads: a 200 MB package unpacked to disk held most of itself in
   * memory. Here a pull consumer asks for a few chunks at a time, and the generator asks for the next only
   * when the reader does. A digest that does not match fails the stream, so the client sees a cut response,
   * not a wrong file; so does a chunk that does not come within `chunkWaitMs` (the object was deleted mid-read).
   * The reader closing the stream (`closed`) stops the read wherever it waits, and the consumer is deleted.
   */
  private async *chunks(info: ObjectInfo, closed: AbortSignal): AsyncGenerator<Uint8Array> {
    if (info.size === 0) return;
    const consumer = await jetstream(this.nc).consumers.get(`OBJ_${this.bucket}`, { filter_subjects: `$O.${this.bucket}.C.${info.nuid}` });
    const messages = await consumer.consume({ max_messages: CHUNKS_AHEAD });
    const stop = () => void messages.stop();
    closed.addEventListener('abort', stop, { once: true });
    // Closed while the consumer was being made: no abort event is coming.
    if (closed.aborted) stop();
    let stalled = false;
    let timer: NodeJS.Timeout | undefined;
    // Counted only while the read waits for the server, not while the reader takes its time over a chunk.
    const awaitChunk = () => (timer = setTimeout(() => ((stalled = true), stop()), this.chunkWaitMs));
    const hash = createHash('sha256');
    let received = 0;
    try {
      awaitChunk();
      for await (const message of messages) {
        clearTimeout(timer);
        if (message.data.length > 0) {
          hash.update(message.data);
          received += message.data.length;
          yield message.data;
        }
        if (message.info.pending === 0) break;
        awaitChunk();
      }
    } finally {
      clearTimeout(timer);
      closed.removeEventListener('abort', stop);
      await messages.close().catch(() => undefined);
      // An ordered consumer outlives its close by its inactive threshold (five minutes): one per read piled up.
      await consumer.delete().catch(() => undefined);
    }
    if (closed.aborted) return;
    if (stalled) throw new Error(`object ${info.name} sent no chunk for ${this.chunkWaitMs} ms: deleted while read?`);
    // `SHA-256=` and base64url with its padding, as the client writes it (base64 from other clients).
    const digest = info.digest.replace(/^SHA-256=/i, '').replace(/=+$/, '');
    const computed = hash.digest();
    const same = digest === computed.toString('base64url') || digest === computed.toString('base64').replace(/=+$/, '');
    if (received !== info.size || !same) throw new Error(`object ${info.name} is corrupt or cut: ${received} of ${info.size} bytes, digest ${same ? 'matches' : 'differs'}`);
  }

  async delete(key: string): Promise<void> {
    assertFileKey(key);
    const store = await this.open$();
    if (await store.info(key)) await store.delete(key);
  }

  /**
   * Reads each object's metadata (one request per object whose name starts with `prefix`: the name is in
   * its metadata subject), a page of subjects at a time. Meant for sweeps, not for requests.
   */
  async *list(prefix: string): AsyncGenerator<ListedFile> {
    const jsm = await this.manager();
    const metas = this.subjectPrefix('M');
    for await (const page of this.subjectPages(`${metas}>`)) {
      for (const subject of page.subjects) {
        if (!Buffer.from(subject.slice(metas.length), 'base64url').toString().startsWith(prefix)) continue;
        const info = await this.metaAt(jsm, subject);
        if (info && !info.deleted) yield { key: info.name, size: info.size, modifiedAt: new Date(info.mtime) };
      }
    }
  }

  /**
   * Two things a deleted or never finished object leaves in the stream: a deleted object's metadata (its
   * marker, kept for ever by the client), and the chunks of a put whose writer died before it wrote the
   * object's metadata (no metadata names their nuid). Both go once their last message is older than
   * `before`. What it holds at once: a page of subjects, and the nuids of the live objects.
   */
  async removeLeftovers(before: Date): Promise<number> {
    const jsm = await this.manager();
    const [metas, chunks] = [this.subjectPrefix('M'), this.subjectPrefix('C')];
    const named = new Set<string>();
    let removed = 0;
    for await (const page of this.subjectPages(`${metas}>`)) {
      for (const subject of page.subjects) {
        const info = await this.metaAt(jsm, subject);
        if (info && !info.deleted) named.add(info.nuid);
        else if (info && (await this.purgeIfOlder(jsm, subject, before))) page.removed += 1;
      }
      removed += page.removed;
    }
    for await (const page of this.subjectPages(`${chunks}>`)) {
      for (const subject of page.subjects) {
        if (!named.has(subject.slice(chunks.length)) && (await this.purgeIfOlder(jsm, subject, before))) page.removed += 1;
      }
      removed += page.removed;
    }
    return removed;
  }

  private async purgeIfOlder(jsm: JetStreamManager, subject: string, before: Date): Promise<boolean> {
    const last = await jsm.streams.getMessage(this.stream, { last_by_subj: subject });
    if (!last || last.time >= before) return false;
    // Up to the message looked at: an object put under a deleted name meanwhile keeps its metadata.
    await jsm.streams.purge(this.stream, { filter: subject, seq: last.seq + 1 });
    return true;
  }

  private get stream(): string {
    return `OBJ_${this.bucket}`;
  }

  /** `M`: one subject per object, named by its name in base64url, the last message its metadata; `C`: one per put, named by its nuid, its chunks. */
  private subjectPrefix(kind: 'M' | 'C'): string {
    return `$O.${this.bucket}.${kind}.`;
  }

  private async manager(): Promise<JetStreamManager> {
    await this.open$(); // a writer creates the bucket: a sweep before any put finds it empty
    return jetstreamManager(this.nc);
  }

  /**
   * The stream's subjects matching `filter`, a page at a time as the server pages them (a bucket of many
   * objects is never held whole). The reader counts in `removed` the subjects of its page it purged, so the
   * next page starts where it should.
   */
  private async *subjectPages(filter: string): AsyncGenerator<{ subjects: string[]; removed: number }> {
    for (let offset = 0; ; ) {
      const reply = (await this.nc.request(`$JS.API.STREAM.INFO.${this.stream}`, JSON.stringify({ subjects_filter: filter, offset }), { timeout: 10_000 })).json<SubjectsPage>();
      if (reply.error) throw new Error(`stream info of ${this.stream}: ${reply.error.description}`);
      const page = { subjects: Object.keys(reply.state?.subjects ?? {}), removed: 0 };
      if (page.subjects.length === 0) return;
      yield page;
      if (!reply.limit || page.subjects.length < reply.limit) return;
      offset += page.subjects.length - page.removed;
    }
  }

  private async metaAt(jsm: JetStreamManager, subject: string): Promise<ObjectInfo | undefined> {
    const message = await jsm.streams.getMessage(this.stream, { last_by_subj: subject });
    return message ? message.json<ObjectInfo>() : undefined;
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
