import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@lms/testing';
import { describeWithWorkers, startWorkerlessSystem, type WorkerlessSystem } from './workerless-system.js';

// jobs-worker in a process of its own, as deployed: its batches of rows reach identity over NATS, where a request
// must fit one message (1 MiB), not in process (the all-in-one system calls a local handler with no such limit).
describeWithWorkers('CSV import batches over NATS', () => {
  let s: WorkerlessSystem;
  let server: Server;
  let csvBody = '';

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(csvBody));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // Identity reads the setting at start (the loopback csv_url is saved); the worker gets it in its environment.
    process.env.IMPORT_ALLOW_PRIVATE_ADDRESSES = 'true';
    s = await startWorkerlessSystem('imports');
    delete process.env.IMPORT_ALLOW_PRIVATE_ADDRESSES;
    await s.startWorker(undefined, { IMPORT_ALLOW_PRIVATE_ADDRESSES: 'true' });
    const profile = await s.api.patch('/api/admin/import_profile', {
      csv_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/users.csv`,
      has_headers: true,
      columns: { '0': ['uid'], '1': ['first_name'] },
    });
    expect(profile.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('sends rows in batches that fit a message: 100 rows of long cells fail each on its own, the run completes', async () => {
    // 100 rows of 12,000 characters are 1.2 MB: one batch of 100 was past a NATS message, and refused whole.
    const long = 'x'.repeat(12_000);
    csvBody = ['uid,first_name', ...Array.from({ length: 100 }, (_, i) => `long-${i},${long}`), 'after-long,After', ''].join('\n');
    const started = await s.api.post('/api/admin/import_profile/run');
    expect(started.status).toBe(202);
    const run = await eventually(async () => {
      const found = (await s.api.get(`/api/admin/import_profile/runs/${started.body.import_runs[0].id}`)).body.import_runs[0];
      return found.status === 'complete' || found.status === 'failed' ? found : undefined;
    }, 30_000, 100);
    expect(run).toMatchObject({ status: 'complete', rows: 101, counts: { created: 1, updated: 0, unchanged: 0, failed: 100 }, error: null });
    expect(run.errors[0]).toEqual({ line: 2, field: 'first_name', message: expect.stringMatching(/first_name/) });
    expect((await s.api.get('/api/admin/users/uid:after-long')).body.users[0]).toMatchObject({ first_name: 'After' });
  });
});
