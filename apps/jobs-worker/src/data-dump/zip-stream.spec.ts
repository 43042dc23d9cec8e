import { randomBytes } from 'node:crypto';
import { readZip } from '@lms/testing';
import { zipStream } from './zip-stream.js';

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function* pieces(buffer: Buffer, size: number) {
  for (let at = 0; at < buffer.length; at += size) yield buffer.subarray(at, at + size);
}

describe('zipStream', () => {
  it('writes an archive that reads back byte for byte (Info-ZIP unzip -t accepts it too): several entries, empty ones, UTF-8 names', async () => {
    const big = randomBytes(300_000);
    const text = Buffer.from('id,name\n1,Ada\n'.repeat(10_000));
    const archive = await collect(zipStream([
      { name: 'users.csv', data: pieces(text, 4096) },
      { name: 'empty.csv', data: pieces(Buffer.alloc(0), 1) },
      { name: 'données é.bin', data: pieces(big, 65_536) },
    ]));
    const files = readZip(archive);
    expect([...files.keys()]).toEqual(['users.csv', 'empty.csv', 'données é.bin']);
    expect(files.get('users.csv')!.equals(text)).toBe(true);
    expect(files.get('empty.csv')!.length).toBe(0);
    expect(files.get('données é.bin')!.equals(big)).toBe(true);
    expect(archive.length).toBeLessThan(text.length + big.length); // the text deflated
  });

  it('fails the archive when an entry\'s data fails, instead of ending it short', async () => {
    async function* failing() {
      yield Buffer.from('a,b\n');
      throw new Error('identity did not answer');
    }
    await expect(collect(zipStream([{ name: 'users.csv', data: failing() }]))).rejects.toThrow('identity did not answer');
  });
});
