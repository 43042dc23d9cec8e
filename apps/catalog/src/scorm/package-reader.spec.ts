import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { ScormPackageFile } from './package-reader.js';

const manifest = `<?xml version="1.0"?><manifest identifier="m" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"><metadata><schemaversion>1.2</schemaversion></metadata>
  <organizations default="o"><organization identifier="o"><item identifier="s" identifierref="r"/></organization></organizations>
  <resources><resource identifier="r" adlcp:scormtype="sco" href="index.html"/></resources></manifest>`;

describe('ScormPackageFile.read', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'scorm-reader-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });
  const read = async (entries: Zippable, maxEntries: number) => {
    const file = join(folder, 'package.zip');
    await writeFile(file, zipSync({ 'imsmanifest.xml': strToU8(manifest), 'index.html': strToU8('<p>hi</p>'), ...entries }));
    return ScormPackageFile.read(file, { maxEntries, maxBytes: 1 << 20 });
  };
  const folders = (count: number): Zippable => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}/`, new Uint8Array()]));

  it('counts folders as well as files against the entries it walks: a zip of millions of empty folders kept catalog busy for minutes', async () => {
    // Up to twice the files in folders (one per file and more) still reads.
    expect((await read(folders(8), 5)).entries.map((e) => e.path)).toEqual(['imsmanifest.xml', 'index.html']);
    await expect(read(folders(9), 5)).rejects.toThrow('the package has more than 10 entries (files and folders)');
  });
});
