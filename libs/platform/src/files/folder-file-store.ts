import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertFileKey, type FileStore, type ListedFile, type OpenedFile, type StoredFile } from './file-store.js';

const PARTIAL = '.partial';

/** Embedded mode's file store: files under a folder, each written to a temporary name and renamed into place. */
export class FolderFileStore implements FileStore {
  constructor(readonly root: string) {}

  async put(key: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredFile> {
    assertFileKey(key);
    const path = join(this.root, key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomUUID()}${PARTIAL}`;
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
    await Promise.all(names.filter((n) => n.startsWith(prefix) && n.endsWith(PARTIAL)).map((n) => rm(join(dirname(path), n), { force: true })));
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

  async *list(prefix: string): AsyncGenerator<ListedFile> {
    for await (const { key, folder } of this.walk(prefix)) {
      if (folder || key.endsWith(PARTIAL)) continue;
      const found = await stat(join(this.root, key)).catch(() => undefined); // deleted meanwhile
      if (found) yield { key, size: found.size, modifiedAt: found.mtime };
    }
  }

  /**
   * Partial writes, and the folders deletes left empty, unchanged since `before`: a put under way creates
   * its folder and writes into it at once. The top folders (`jobs`, `uploads`) stay.
   */
  async removeLeftovers(before: Date): Promise<number> {
    let removed = 0;
    for await (const { key, folder } of this.walk('')) {
      if (!folder && !key.endsWith(PARTIAL)) continue;
      const path = join(this.root, key);
      const found = await stat(path).catch(() => undefined);
      if (!found || found.mtime >= before) continue;
      if (!folder) await rm(path, { force: true });
      // rmdir refuses a folder that is not empty, so a file written into it meanwhile keeps it.
      else if (!key.includes('/') || !(await rmdir(path).then(() => true, () => false))) continue;
      removed += 1;
    }
    return removed;
  }

  /** The files and folders under the root whose keys start with `prefix` (partial writes included), each folder after its contents. */
  private async *walk(prefix: string, parent = ''): AsyncGenerator<{ key: string; folder: boolean }> {
    const entries = await readdir(join(this.root, parent), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const key = parent ? `${parent}/${entry.name}` : entry.name;
      if (!entry.isDirectory()) {
        if (key.startsWith(prefix)) yield { key, folder: false };
      } else if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) {
        yield* this.walk(prefix, key);
        yield { key, folder: true };
      }
    }
  }
}
