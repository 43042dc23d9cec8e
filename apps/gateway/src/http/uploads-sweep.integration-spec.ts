import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBus, createFileStore, createLogger, type FileStore, loadConfig, type MessageBus } from '@lms/platform';
import { deleteNamespaceStreams, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, uniqueName } from '@lms/testing';
import type { GatewayDeps } from '../gateway-deps.js';
import { Uploads } from './uploads.js';

const natsUrl = testNatsUrl();
const TIMEOUT_MS = 60_000;

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
});
