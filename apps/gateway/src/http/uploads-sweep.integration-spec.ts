import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createBus, createFileStore, createLogger, type FileStore, loadConfig, type MessageBus } from '@lms/platform';
import type { RouteDefinition } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import { deleteNamespaceStreams, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, uniqueName } from '@lms/testing';
import type { GatewayDeps } from '../gateway-deps.js';
import { watchedBody } from './body-watch.js';
import { UploadBody, Uploads } from './uploads.js';

const natsUrl = testNatsUrl();
const TIMEOUT_MS = 60_000;
const IDLE_MS = 1_000;

/** The staged uploads a gateway killed mid-request leaves, in the folder store (embedded) and the object store (NATS). */
describe.each([['a folder', false], ...(natsUrl ? [['the object store', true] as [string, boolean]] : [])])('staged uploads in %s', (_where, withNats) => {
  const namespace = uniqueName('uploads');
  let dataDir: string;
  let bus: MessageBus;
  let uploads: Uploads;
  let staged: FileStore;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'uploads-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      NATS_NAMESPACE: namespace,
      UPLOAD_TIMEOUT_MS: String(TIMEOUT_MS),
      UPLOAD_IDLE_MS: String(IDLE_MS),
      ...(withNats ? { NATS_URL: natsUrl!, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY } : {}),
    });
    const logger = createLogger('silent');
    // Without NATS the bus only tells the file store to be a folder: nothing here sends on it.
    bus = withNats ? await createBus(config, 'gateway', logger) : ({ close: async () => undefined } as unknown as MessageBus);
    uploads = new Uploads({ runtime: { config, bus, logger, databaseUrl: '' } } as unknown as GatewayDeps);
    // The gateway's own view of the bucket: what a killed replica wrote there.
    staged = createFileStore(config, bus, { writer: true, bucket: 'UPLOADS' });
  });

  afterAll(async () => {
    await bus?.close();
    if (withNats) await deleteNamespaceStreams(natsUrl!, namespace);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps a staged file while a request may still use it, and removes it after, leaving other keys alone', async () => {
    const key = `uploads/${uniqueName('left')}`;
    await staged.put(key, [Buffer.from('a package a killed gateway staged')]);
    await staged.put('other/file', [Buffer.from('not a staged upload')]);

    // Within the upload timeout plus an hour of it, the service may still be reading it.
    expect(await uploads.sweep(new Date(Date.now() + TIMEOUT_MS))).toEqual({ staged: 0, leftovers: 0 });
    expect(await staged.open(key).then((f) => (f?.stream.destroy(), f?.size))).toBeGreaterThan(0);

    expect((await uploads.sweep(new Date(Date.now() + TIMEOUT_MS + 3_600_000 + 5_000))).staged).toBe(1);
    expect(await staged.open(key)).toBeUndefined();
    expect(await staged.open('other/file').then((f) => (f?.stream.destroy(), f?.size))).toBeGreaterThan(0);
  });

  const listed = async () => {
    const keys: string[] = [];
    for await (const file of staged.list('uploads/')) keys.push(file.key);
    return keys.sort();
  };
  const boundary = 'b0undary';
  /** An upload of `contentType` as the gateway stages it (its body watched, as BodyWatch does), whose body the test writes. */
  const startUpload = (contentType: string) => {
    const multipart = contentType === 'multipart/form-data';
    const route = { upload: { contentTypes: [contentType], fields: [] } } as unknown as RouteDefinition;
    const request = { headers: { 'content-type': multipart ? `${contentType}; boundary=${boundary}` : contentType } } as unknown as FastifyRequest;
    const body = new PassThrough();
    const staging = uploads.stage(route, new UploadBody(watchedBody(body, IDLE_MS), contentType), request);
    body.write(multipart ? `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\nContent-Type: application/zip\r\n\r\n` : 'PK');
    body.write(Buffer.alloc(200_000, 1));
    return { body, staging };
  };
  const bodies = [
    ['a file as the body', 'application/zip'],
    ['a multipart body', 'multipart/form-data'],
  ];

  it.each(bodies)('ends an upload of %s whose client left mid-body with a 400, and leaves nothing staged', async (_what, contentType) => {
    const before = await listed();
    const { body, staging } = startUpload(contentType);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 4));
    // The connection resets: Node destroys the request stream, and nothing piped from it ends.
    body.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    await expect(staging).rejects.toMatchObject({ status: 400, code: 'BODY_INCOMPLETE' });
    expect(await listed()).toEqual(before);
    expect(await staged.removeLeftovers(new Date(Date.now() + 3_600_000))).toBe(0);
  });

  it.each(bodies)('ends an upload of %s whose client stopped sending with a 408 once UPLOAD_IDLE_MS passed, and leaves nothing staged', async (_what, contentType) => {
    const before = await listed();
    const { body, staging } = startUpload(contentType);
    // Still sending within the idle time: the upload goes on.
    for (let i = 0; i < 3; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 4));
      body.write(Buffer.alloc(1_000, 2));
    }
    await expect(staging).rejects.toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', headers: { connection: 'close' } });
    // The request itself stays open, so the 408 can be answered on it.
    expect(body.destroyed).toBe(false);
    expect(await listed()).toEqual(before);
    expect(await staged.removeLeftovers(new Date(Date.now() + 3_600_000))).toBe(0);
  });

  it.each(bodies)('stages an upload of %s that pauses under UPLOAD_IDLE_MS between chunks', async (_what, contentType) => {
    const { body, staging } = startUpload(contentType);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 4));
    body.end(contentType === 'multipart/form-data' ? `\r\n--${boundary}--\r\n` : undefined);
    const { upload } = await staging;
    expect(upload.size).toBe(contentType === 'multipart/form-data' ? 200_000 : 200_002);
    await uploads.discard(upload.key);
  });
});
