import { PassThrough } from 'node:stream';
import { watchedBody } from './body-watch.js';

const IDLE_MS = 200;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Reads `body` to its end, or to its error. */
const readAll = async (body: AsyncIterable<unknown>) => {
  for await (const chunk of body) void chunk;
};

describe('watchedBody', () => {
  it('fails with a 408 that closes the connection when the client sends nothing while the reader waits, leaving the request open', async () => {
    const request = new PassThrough();
    const body = watchedBody(request, IDLE_MS);
    const read = readAll(body);
    request.write('a first chunk');
    await expect(read).rejects.toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', headers: { connection: 'close' } });
    expect(request.destroyed).toBe(false);
  });

  it('is not idle while its reader is behind: a request paused by backpressure goes on once read', async () => {
    const request = new PassThrough();
    const body = watchedBody(request, IDLE_MS);
    // Far more than the buffers between them hold: the pipe pauses the request.
    const sent = Buffer.alloc(1024 * 1024, 7);
    request.end(sent);
    await pause(IDLE_MS * 3);
    expect(request.isPaused()).toBe(true);
    let size = 0;
    for await (const chunk of body) size += (chunk as Buffer).length;
    expect(size).toBe(sent.length);
  });

  it('fails with the request when its client goes mid-body', async () => {
    const request = new PassThrough();
    const body = watchedBody(request, IDLE_MS);
    const read = readAll(body);
    request.write('part of it');
    request.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    await expect(read).rejects.toMatchObject({ code: 'ECONNRESET' });
  });
});
