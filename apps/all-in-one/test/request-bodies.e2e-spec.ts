import { connect, type Socket } from 'node:net';
import { startTestSystem, type TestSystem } from './test-system.js';

const IDLE_MS = 1_000;
const UPLOAD_MAX_BYTES = 64 * 1024;

/** One raw connection: what the gateway wrote on it, and whether it closed it. */
class Connection {
  received = '';
  closed = false;
  private readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk) => (this.received += String(chunk)));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => (this.closed = true));
  }

  send(text: string | Buffer): void {
    this.socket.write(text);
  }

  /** Waits until `done` holds, up to `ms`. */
  async until(done: () => boolean, ms: number): Promise<void> {
    for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  end(): void {
    this.socket.destroy();
  }
}

/**
 * Request bodies that stop arriving, and bodies the gateway refuses before reading them, over real
 * connections: what the client sees, and what becomes of its connection.
 */
describe('request bodies at the edge', () => {
  let t: TestSystem;
  let port: number;
  const connections: Connection[] = [];
  const open = () => {
    const connection = new Connection(port);
    connections.push(connection);
    return connection;
  };
  const head = (method: string, path: string, headers: Record<string, string | number>) =>
    `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${t.token}\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`;
  const status = (connection: Connection) => Number(/^HTTP\/1\.1 (\d{3})/.exec(connection.received)?.[1]);

  beforeAll(async () => {
    t = await startTestSystem({ UPLOAD_IDLE_MS: String(IDLE_MS), UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) });
    port = Number(new URL(t.system.url).port);
  });
  afterAll(async () => {
    for (const connection of connections) connection.end();
    await t?.close();
  });

  it.each([
    ['a JSON body', 'POST', '/api/admin/users', 'application/json', '{"users": [{"first_name": "Stal'],
    ['an upload', 'PUT', '/api/author/course_templates/1/scorm_package', 'application/zip', Buffer.alloc(1_000, 1)],
  ])('answers %s that stops arriving with a 408 the client receives, then closes the connection', async (_what, method, path, type, start) => {
    const connection = open();
    connection.send(head(method, path, { 'content-type': type, 'content-length': 50_000 }));
    connection.send(start);
    await connection.until(() => connection.closed, IDLE_MS * 5);
    expect(status(connection)).toBe(408);
    expect(connection.received).toMatch(/\r\nconnection: close\r\n/i);
    expect(connection.received).toContain('"code":"REQUEST_TIMEOUT"');
    expect(connection.closed).toBe(true);
  });

  it('goes on with a body that pauses under UPLOAD_IDLE_MS', async () => {
    const connection = open();
    const body = JSON.stringify({ users: [{ uid: 'paused', first_name: 'Paused', last_name: 'Sender', email: 'paused@bodies.test' }] });
    connection.send(head('POST', '/api/admin/users', { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }));
    connection.send(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 2));
    connection.send(body.slice(10));
    await connection.until(() => status(connection) > 0, IDLE_MS * 5);
    expect(status(connection)).toBe(200);
    expect(connection.received).toContain('paused@bodies.test');
    expect(connection.closed).toBe(false);
  });

  it('reads and drops a large body it refused unread, so the connection carries the next request', async () => {
    const connection = open();
    // A zip where JSON is taken: refused (415) before a byte of its body is read.
    connection.send(head('POST', '/api/admin/users', { 'content-type': 'application/zip', 'content-length': 200_000 }));
    connection.send(Buffer.alloc(200_000, 1));
    await connection.until(() => status(connection) > 0, IDLE_MS * 5);
    expect(status(connection)).toBe(415);
    connection.received = '';
    connection.send('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await connection.until(() => status(connection) > 0, IDLE_MS * 5);
    expect(status(connection)).toBe(200);
  });

  it('keeps a connection whose large body was answered unread, past UPLOAD_IDLE_MS, for its next request', async () => {
    const connection = open();
    // All of it arrives before the answer (a read nobody parses: a GET's body), and more than the buffers hold.
    connection.send(Buffer.concat([Buffer.from(head('GET', '/api/admin/users?per_page=1', { 'content-length': 200_000 })), Buffer.alloc(200_000, 1)]));
    await connection.until(() => status(connection) > 0, IDLE_MS * 5);
    expect(status(connection)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2));
    connection.received = '';
    connection.send('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await connection.until(() => status(connection) > 0, IDLE_MS * 5);
    expect([status(connection), connection.closed]).toEqual([200, false]);
  });

  it('ends the connection of a body refused unread that then stops arriving, and of clients that leave such a body, staying up', async () => {
    // Answered without reading the body: the health check, a body over the limit, a content type nobody takes, an upload too large.
    const health = open();
    health.send('GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nabc');
    const unknown = open();
    unknown.send(head('POST', '/api/admin/nowhere', { 'content-type': 'application/json', 'content-length': 2_000_000 }));
    unknown.send('{');
    const unsupported = open();
    unsupported.send(head('POST', '/api/admin/users', { 'content-type': 'application/x-unknown', 'content-length': 5_000 }));
    unsupported.send('x');
    const upload = open();
    upload.send(head('PUT', '/api/author/course_templates/1/scorm_package', { 'content-type': 'application/zip', 'content-length': UPLOAD_MAX_BYTES + 1 }));
    upload.send('PK');
    await Promise.all([health, unknown, unsupported, upload].map((c) => c.until(() => status(c) > 0, IDLE_MS * 5)));
    expect([health, unknown, unsupported, upload].map(status)).toEqual([200, 413, 415, 413]);
    // Two of them leave; the other two stay and send nothing more.
    unsupported.end();
    upload.end();
    await Promise.all([health, unknown].map((c) => c.until(() => c.closed, IDLE_MS * 5)));
    expect([health.closed, unknown.closed]).toEqual([true, true]);
    // Nothing of it threw in the gateway: it still answers.
    const after = await fetch(`${t.system.url}/healthz`);
    expect(after.status).toBe(200);
  });

  it('answers an upload over UPLOAD_MAX_BYTES that did not say its length with a 413, and closes the connection', async () => {
    const connection = open();
    connection.send(head('PUT', '/api/author/course_templates/1/scorm_package', { 'content-type': 'application/zip', 'transfer-encoding': 'chunked' }));
    const chunk = Buffer.alloc(16 * 1024, 1);
    for (let i = 0; i < 6; i += 1) connection.send(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    await connection.until(() => connection.closed, IDLE_MS * 5);
    expect(status(connection)).toBe(413);
    expect(connection.received).toContain('"code":"UPLOAD_TOO_LARGE"');
    expect(connection.closed).toBe(true);
  });
});
