import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { ManifestError, parseManifest, type ScormManifest } from './manifest.js';

export interface PackageEntry {
  path: string;
  size: number;
}

export interface PackageLimits {
  /** Files in one package. */
  maxEntries: number;
  /** Uncompressed bytes of all files: a zip bomb stops here. */
  maxBytes: number;
}

export class PackageError extends Error {}

const MANIFEST = 'imsmanifest.xml';
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/** A path inside the package: relative, `/`-separated, no `..`, no drive letter, no control characters. */
export function isSafeEntryPath(path: string): boolean {
  if (path.length === 0 || path.length > 1024 || path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path)) return false;
  if (/[\u0000-\u001f]/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '..' && segment !== '.');
}

const safeDecode = (path: string) => {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
};

const utf8 = new TextDecoder('utf-8', { fatal: true });
/**
 * An entry's path, in Unicode's composed form (NFC). A name without the zip's UTF-8 flag is code page 437 by
 * the format, which yauzl reads; but many tools (macOS's Archive Utility, Java's and others) write UTF-8 and set no flag, so such a name whose
 * bytes are UTF-8 with some non-ASCII is read as UTF-8, as unzip and libarchive do. An Info-ZIP Unicode path
 * (extra field 0x7075) still wins.
 */
function entryPath(entry: yauzl.Entry): string {
  return decodedName(entry).normalize('NFC');
}

/** The name as its bytes say (entryPath), before Unicode normalization: macOS writes `é` as `e` and a combining accent. */
function decodedName(entry: yauzl.Entry): string {
  const raw = entry.fileNameRaw;
  if (entry.generalPurposeBitFlag & 0x800 || !raw.some((byte) => byte >= 0x80) || entry.extraFields.some((field) => field.id === 0x7075)) return entry.fileName;
  try {
    // yauzl turns a backslash into `/` in names it reads (strictFileNames: false); so does this.
    return utf8.decode(raw).replace(/\\/g, '/');
  } catch {
    return entry.fileName;
  }
}

const open = (file: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    // Names are checked here (isSafeEntryPath) so the answer can say which entry; sizes yauzl checks itself.
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: true }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );

const readStream = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream))));

/** The entries of a zip, one at a time, closing it however the caller ends. */
async function* entriesOf(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  for (;;) {
    const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
      const onEntry = (e: yauzl.Entry) => done(() => resolve(e));
      const onEnd = () => done(() => resolve(undefined));
      const onError = (err: Error) => done(() => reject(err));
      const done = (then: () => void) => {
        zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
        then();
      };
      zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
      zip.readEntry();
    });
    if (!entry) return;
    yield entry;
  }
}

/**
 * An XML document's text by XML's rules: its byte order mark, else the encoding its declaration names
 * (`ISO-8859-1`, `windows-1252`...), else UTF-8 (also for a name TextDecoder does not know).
 */
export function xmlText(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.toString('utf8');
  const declared = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})["']/.exec(bytes.subarray(0, 256).toString('latin1'))?.[1];
  // A declaration readable byte by byte is in no wide encoding, whatever it says (UTF-16 without its mark).
  if (declared && !/^(utf-?8|utf-?16.*|utf-?32.*|ucs-?[24]|unicode)$/i.test(declared)) {
    try {
      return new TextDecoder(declared).decode(bytes);
    } catch {
      // Not an encoding TextDecoder knows: read as UTF-8, as before.
    }
  }
  return bytes.toString('utf8');
}

async function text(stream: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new PackageError(`${MANIFEST} is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return xmlText(Buffer.concat(chunks));
}

/**
 * A SCORM package on disk, checked: a readable zip, no entry escaping the package, within the limits,
 * with a manifest at its root naming SCOs whose files are in the package. Then `extract` streams
 * each file to `store`, one at a time (memory stays flat whatever the package's size).
 */
export class ScormPackageFile {
  private constructor(
    private readonly file: string,
    readonly manifest: ScormManifest,
    readonly entries: PackageEntry[],
  ) {}

  static async read(file: string, limits: PackageLimits): Promise<ScormPackageFile> {
    let zip: yauzl.ZipFile;
    try {
      zip = await open(file);
    } catch (err) {
      throw new PackageError(`the body is not a zip file (${(err as Error).message})`);
    }
    try {
      // Folders are entries to walk too (a zip of millions of empty ones took minutes): as many as the files at most.
      if (zip.entryCount > 2 * limits.maxEntries) throw new PackageError(`the package has more than ${2 * limits.maxEntries} entries (files and folders)`);
      const entries: PackageEntry[] = [];
      const seen = new Set<string>();
      let total = 0;
      let manifestXml: string | undefined;
      for await (const entry of entriesOf(zip)) {
        const path = entryPath(entry);
        if (!isSafeEntryPath(path)) throw new PackageError(`the entry "${path.slice(0, 200)}" has a path that escapes the package`);
        if (path.endsWith('/')) continue;
        // A zip may hold two entries of one name: which is the file is anyone's guess (and a second manifest could hide).
        if (seen.has(path)) throw new PackageError(`the entry "${path.slice(0, 200)}" is in the package twice`);
        seen.add(path);
        total += entry.uncompressedSize;
        if (entries.length + 1 > limits.maxEntries) throw new PackageError(`the package has more than ${limits.maxEntries} files`);
        if (total > limits.maxBytes) throw new PackageError(`the package's files add up to more than ${limits.maxBytes} bytes`);
        entries.push({ path, size: entry.uncompressedSize });
        if (path === MANIFEST) manifestXml = await text(await readStream(zip, entry), MAX_MANIFEST_BYTES);
      }
      if (manifestXml === undefined) throw new PackageError(`the package has no ${MANIFEST} at its root`);
      const manifest = parseManifest(manifestXml);
      // Every SCO of the table of contents must open, not only the first.
      for (const [index, sco] of manifest.scos.entries()) {
        const file = sco.href.split(/[?#]/)[0];
        // Paths are kept in Unicode's composed form (NFC), whichever form the zip or the manifest wrote.
        if (seen.has(file.normalize('NFC')) || seen.has(safeDecode(file).normalize('NFC'))) continue;
        throw new PackageError(index === 0 ? `the launch file "${file}" named by the manifest is not in the package` : `the file "${file}" of the SCO "${sco.identifier}" named by the manifest is not in the package`);
      }
      return new ScormPackageFile(file, manifest, entries);
    } catch (err) {
      if (err instanceof ManifestError) throw new PackageError(err.message);
      if (err instanceof PackageError) throw err;
      const message = (err as Error).message;
      // yauzl refuses such names itself, before this code sees the entry.
      if (/invalid relative path|absolute path|invalid characters in fileName/i.test(message)) throw new PackageError(`an entry has a path that escapes the package (${message})`);
      throw new PackageError(`the zip file is damaged (${message})`);
    } finally {
      zip.close();
    }
  }

  /**
   * Streams every file to `put(index, path, stream)`, in the zip's order. A file whose data is damaged, or
   * unpacks to more than its header says (a zip bomb `read` could not see: only the manifest is unpacked
   * there), is a PackageError; what `put` fails with itself stays as it is.
   */
  async extract(put: (index: number, entry: PackageEntry, stream: Readable) => Promise<void>): Promise<void> {
    const zip = await open(this.file);
    let damaged: Error | undefined;
    let storing = false;
    try {
      let index = 0;
      for await (const entry of entriesOf(zip)) {
        const path = entryPath(entry);
        if (path.endsWith('/')) continue;
        const stream = await readStream(zip, entry);
        stream.on('error', (err: Error) => (damaged ??= err));
        storing = true;
        await put(index, { path, size: entry.uncompressedSize }, stream);
        storing = false;
        index += 1;
      }
    } catch (err) {
      if (damaged || !storing) throw new PackageError(`the zip file is damaged (${(damaged ?? (err as Error)).message})`);
      throw err;
    } finally {
      zip.close();
    }
  }
}
