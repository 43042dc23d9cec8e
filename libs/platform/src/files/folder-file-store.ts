import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertFileKey, type FileStore, type OpenedFile, type StoredFile } from './file-store.js';

/** Embedded mode's file store: files under a folder, each written to a temporary name and renamed into place. */
export class FolderFileStore implements FileStore {
  constructor(readonly root: string) {}

  async put(key: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredFile> {
    assertFileKey(key);
    const path = join(this.root, key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomUUID()}.partial`;
    try {
      await pipeline(Readable.from(source), createWriteStream(partial));
      // rename replaces atomically: a reader sees the old file or the new one, never a half-written one.
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    await this.removePartials(path);
    return { key, size: (await stat(path)).size };
  }

  /** What an earlier writer of this key left when its process died mid-write. */
  private async removePartials(path: string): Promise<void> {
    const prefix = `${basename(path)}.`;
    const names = await readdir(dirname(path)).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.startsWith(prefix) && n.endsWith('.partial')).map((n) => rm(join(dirname(path), n), { force: true })));
  }

  async open(key: string): Promise<OpenedFile | undefined> {
    assertFileKey(key);
    const path = join(this.root, key);
    try {
      const { size } = await stat(path);
      return { key, size, stream: createReadStream(path) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Removes the file and what writers of it killed mid-write left. */
  async delete(key: string): Promise<void> {
    assertFileKey(key);
    const path = join(this.root, key);
    await rm(path, { force: true });
    await this.removePartials(path);
  }
}
