import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@lms/platform';
import { ApiClient, createTestDatabase, deleteNamespaceStreams, eventually, freePortBlock, readyOn, spawnWorkerProcess, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestDatabase, uniqueName, type WorkerProcess } from '@lms/testing';
import { startSystem, type System } from '../src/host.js';

// jobs-worker in a process of its own, as deployed: its batches of rows reach identity over NATS, where a request
// must fit one message (1 MiB), not in process (the all-in-one system calls a local handler with no such limit).
const natsUrl = testNatsUrl();
const built = existsSync('dist/apps/jobs-worker/main.js');
const describeWithNats = natsUrl && built ? describe : describe.skip;

describeWithNats('CSV import batches over NATS', () => {
  const namespace = uniqueName('imports');
  const token = `bootstrap_${uniqueName('token')}`;
  let db: TestDatabase;
  let system: System;
  let api: ApiClient;
  let worker: WorkerProcess | undefined;
  let server: Server;
  let csvBody = '';

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(csvBody));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    db = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: db.url,
      NATS_URL: natsUrl!,
      CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY,
      NATS_NAMESPACE: namespace,
      PORT: '0',
      HOST: '127.0.0.1',
      BOOTSTRAP_ADMIN_TOKEN: token,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_TOKEN: '0',
      RATE_LIMIT_PER_ADDRESS: '0',
    });
    // Identity reads the setting at start (the loopback csv_url is saved); the worker gets it in its environment.
    process.env.IMPORT_ALLOW_PRIVATE_ADDRESSES = 'true';
    system = await startSystem({ config, without: ['jobs-worker'] });
    delete process.env.IMPORT_ALLOW_PRIVATE_ADDRESSES;
    api = new ApiClient(system.url, token);
    const port = await freePortBlock(1);
    worker = spawnWorkerProcess('dist/apps/jobs-worker/main.js', { databaseUrl: db.url, natsUrl: natsUrl!, namespace, healthPort: port, env: { IMPORT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    await readyOn(port);
    const profile = await api.patch('/api/admin/import_profile', {
      csv_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/users.csv`,
      has_headers: true,
      columns: { '0': ['uid'], '1': ['first_name'] },
    });
    expect(profile.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await worker?.exited;
    await system?.close();
    await deleteNamespaceStreams(natsUrl!, namespace);
    await db?.drop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('sends rows in batches that fit a message: 100 rows of long cells fail each on its own, the run completes', async () => {
    // 100 rows of 12,000 characters are 1.2 MB: one batch of 100 was past a NATS message, and refused whole.
    const long = 'x'.repeat(12_000);
    csvBody = ['uid,first_name', ...Array.from({ length: 100 }, (_, i) => `long-${i},${long}`), 'after-long,After', ''].join('\n');
    const started = await api.post('/api/admin/import_profile/run');
    expect(started.status).toBe(202);
    const run = await eventually(async () => {
      const found = (await api.get(`/api/admin/import_profile/runs/${started.body.import_runs[0].id}`)).body.import_runs[0];
      return found.status === 'complete' || found.status === 'failed' ? found : undefined;
    }, 30_000, 100);
    expect(run).toMatchObject({ status: 'complete', rows: 101, counts: { created: 1, updated: 0, unchanged: 0, failed: 100 }, error: null });
    expect(run.errors[0]).toEqual({ line: 2, field: 'first_name', message: expect.stringMatching(/first_name/) });
    expect((await api.get('/api/admin/users/uid:after-long')).body.users[0]).toMatchObject({ first_name: 'After' });
  });
});
