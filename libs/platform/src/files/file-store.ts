import type { Readable } from 'node:stream';

/** A stored file as the store reports it. */
export interface StoredFile {
  key: string;
  size: number;
}

/** A stored file as a listing reports it. */
export interface ListedFile extends StoredFile {
  modifiedAt: Date;
}

/** A file opened for reading: it streams, it is never read whole into memory. */
export interface OpenedFile extends StoredFile {
  stream: Readable;
}

/**
 * Where jobs keep the files they make (dumps, downloads): the JetStream object store with NATS_URL, a
 * folder under DATA_DIR in embedded mode (docs/jobs.md). A `put` replaces the file at its key whole or not
 * at all, so a job that runs again after its worker died leaves one file, never two or half of one.
 */
export interface FileStore {
  put(key: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredFile>;
  /** Undefined when there is no file at `key`. */
  open(key: string): Promise<OpenedFile | undefined>;
  delete(key: string): Promise<void>;
  /** The files whose keys start with `prefix`, in no particular order; read as the caller reads. */
  list(prefix: string): AsyncIterable<ListedFile>;
  /**
   * Removes what no reader can reach and no writer will come back for, when its last write is older than
   * `before`: the partial writes of writers killed mid-write, and what the store keeps of deleted files.
   * Answers how many things went. A write still under way wrote recently, so it is kept.
   */
  removeLeftovers(before: Date): Promise<number>;
}

/** `jobs/<uuid>/dump.zip`: letters, digits, `_ . -` in `/`-separated segments, none of them `.` or `..`. */
export function assertFileKey(key: string): void {
  const segments = key.split('/');
  const valid = key.length <= 512 && segments.every((s) => /^[A-Za-z0-9_.-]+$/.test(s) && s !== '.' && s !== '..');
  if (!valid) throw new Error(`invalid file key '${key}'`);
}

export const isFileKey = (key: string): boolean => {
  try {
    assertFileKey(key);
    return true;
  } catch {
    return false;
  }
};
