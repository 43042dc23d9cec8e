import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { sendStream } from './stream-reply.js';

const CHUNK = Buffer.alloc(128 * 1024, 1);
const CHUNKS = 400;

/** A source that says when it was released, and how much of it was read. */
function source() {
  const state = { read: 0, released: false };
  async function* chunks() {
    try {
      for (let i = 0; i < CHUNKS; i++) {
        state.read += 1;
        yield CHUNK;
      }
    } finally {
      state.released = true;
    }
  }
  return { state, stream: Readable.from(chunks()) };
}

describe('streamed answers', () => {
  let app: FastifyInstance;
  let port: number;
  let last: ReturnType<typeof source>;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    app = Fastify();
    app.get('/file', (request, reply) => {
      last = source();
      reply.header('content-length', String(CHUNK.length * CHUNKS));
      // The stall limit of the test: 300 ms instead of STALLED_STREAM_MS.
      return sendStream(request, reply, last.stream, 300);
    });
    app.get('/small', (request, reply) => sendStream(request, reply, Readable.from([Buffer.from('small')]), 300));
    app.get('/hang', (request, reply) => sendStream(request, reply, new Readable({ read: () => undefined }), 300));
    app.get('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 900));
      return 'slow';
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await app.close();
  });

  it('cuts the connection of a client that stops reading, and releases the source', async () => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.pause(); // reads nothing (so it does not notice the cut itself either)
    socket.on('error', () => undefined);
    socket.write('GET /file HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 50 && !last?.state.released; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(last.state.released).toBe(true);
    expect(await new Promise((resolve) => app.server.getConnections((_err, n) => resolve(n)))).toBe(0);
    expect(last.state.read).toBeLessThan(CHUNKS);
  });

  it('answers HEAD with the headers, without reading the source', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/file`, { method: 'HEAD' });
    expect([res.status, res.headers.get('content-length')]).toEqual([200, String(CHUNK.length * CHUNKS)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(last.state.read).toBe(0);
  });

  it('lifts the stall limit once its answer is done, so a request pipelined behind it may take its time', async () => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('data', (chunk) => (received += String(chunk)));
    socket.write('GET /small HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 30 && !received.includes('slow'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(received).toContain('slow');
  });

  it('cuts a stalled answer pipelined behind one that finished', async () => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('data', (chunk) => (received += String(chunk)));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write('GET /small HTTP/1.1\r\nHost: x\r\n\r\nGET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    expect(received).toContain('small');
  });
});
