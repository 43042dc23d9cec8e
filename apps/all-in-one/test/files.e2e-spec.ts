import { randomBytes } from 'node:crypto';
import { createFileStore, type FileStore, loadConfig, type PlatformConfig, signFileUrl } from '@lms/platform';
import { deleteNamespaceStreams, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, uniqueName } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

/** Files at signed URLs through the gateway, from the file store jobs-worker writes (object store with NATS, folder without). */
describe('files at signed URLs', () => {
  const namespace = uniqueName('files');
  const natsUrl = testNatsUrl();
  let t: TestSystem;
  let config: PlatformConfig;
  let files: FileStore;
  const content = randomBytes(3 * 1024 * 1024 + 17); // several object store chunks
  const key = `jobs/${uniqueName('job')}/dump.zip`;

  const fetchFile = (url: string) => fetch(`${t.system.url}${url}`, { redirect: 'manual' });
  const expectProblem = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await res.json()) as { code: string }).code).toBe(code);
  };

  beforeAll(async () => {
    t = await startTestSystem({ NATS_NAMESPACE: namespace });
    // The key the system derived from its configuration, as the jobs service signs with it.
    config = loadConfig({ NATS_NAMESPACE: namespace, ...(natsUrl ? { NATS_URL: natsUrl, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY } : {}) });
    files = createFileStore(config, t.system.bus, { writer: true });
    await files.put(key, (async function* () {
      for (let at = 0; at < content.length; at += 64 * 1024) yield content.subarray(at, at + 64 * 1024);
    })());
  }, 60_000);

  afterAll(async () => {
    await files?.delete(key).catch(() => undefined);
    await t?.close();
    if (natsUrl) await deleteNamespaceStreams(natsUrl, namespace);
  });

  it('streams the file with its length, type and download name', async () => {
    const res = await fetchFile(signFileUrl(config.fileUrlSigningKey, key, 'data dump é.zip'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-length')).toBe(String(content.length));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="data dump _.zip"; filename*=UTF-8''data%20dump%20%C3%A9.zip`);
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
  });

  it('answers 403 to a URL whose path, name, expiry or signature was changed, or that has none', async () => {
    const url = signFileUrl(config.fileUrlSigningKey, key, 'dump.zip');
    const [path, query] = url.split('?');
    const params = new URLSearchParams(query);
    const other = key.replace('dump.zip', 'other.zip');
    const changed = (name: string, value: string) => {
      const p = new URLSearchParams(params);
      p.set(name, value);
      return `${path}?${p}`;
    };
    for (const tampered of [
      `/files/${other}?${query}`,
      changed('name', 'dump.exe'),
      changed('expires', String(Number(params.get('expires')) + 3600)),
      changed('signature', `${params.get('signature')!.slice(0, -2)}AA`),
      path,
      `${path}?name=dump.zip&expires=${params.get('expires')}`,
    ]) {
      await expectProblem(await fetchFile(tampered), 403, 'FILE_URL_INVALID');
    }
  });

  it('answers 403 to a genuine URL past its expiry, and 404 to a genuine URL of a file that is gone', async () => {
    await expectProblem(await fetchFile(signFileUrl(config.fileUrlSigningKey, key, 'dump.zip', Date.now() - 301_000)), 403, 'FILE_URL_EXPIRED');
    await expectProblem(await fetchFile(signFileUrl(config.fileUrlSigningKey, `jobs/${uniqueName('gone')}/dump.zip`, 'dump.zip')), 404, 'FILE_NOT_FOUND');
  });

  it('does not take a signed URL signed with another key', async () => {
    const foreign = loadConfig({ CONTEXT_SIGNING_KEY: 'another-context-signing-key-of-32-characters', NATS_URL: 'nats://127.0.0.1:1' });
    await expectProblem(await fetchFile(signFileUrl(foreign.fileUrlSigningKey, key, 'dump.zip')), 403, 'FILE_URL_INVALID');
  });
});
