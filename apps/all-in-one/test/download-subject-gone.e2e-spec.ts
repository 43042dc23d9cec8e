import { existsSync } from 'node:fs';
import { loadConfig } from '@lms/platform';
import { ApiClient, createTestDatabase, deleteNamespaceStreams, eventually, freePortBlock, readyOn, spawnWorkerProcess, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestDatabase, uniqueName, type WorkerProcess } from '@lms/testing';
import { startSystem, type System } from '../src/host.js';

// The system in this process without its jobs-worker, so a download waits in the queue while what it names is
// deleted; then a real jobs-worker process (the build `npm test` makes first) takes it.
const natsUrl = testNatsUrl();
const built = existsSync('dist/apps/jobs-worker/main.js');
const describeWithNats = natsUrl && built ? describe : describe.skip;

describeWithNats('a download whose subject is deleted before it runs', () => {
  const namespace = uniqueName('dlgone');
  const token = `bootstrap_${uniqueName('token')}`;
  let db: TestDatabase;
  let system: System;
  let api: ApiClient;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
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
    system = await startSystem({ config, without: ['jobs-worker'] });
    api = new ApiClient(system.url, token);
  }, 120_000);

  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await worker?.exited;
    await system?.close();
    await deleteNamespaceStreams(natsUrl!, namespace);
    await db?.drop();
  });

  it('fails at once with the owning service\'s refusal, not after three attempts and their back-off', async () => {
    const live = (await api.post('/api/author/live_courses', { live_courses: [{ title: 'Gone live course' }] })).body.live_courses[0];
    const session = (await api.post(`/api/author/live_courses/${live.id}/sessions`, { sessions: [{ seats: 10 }] })).body.sessions[0];
    const created = await api.post('/api/downloads', { download: { download_type: 'session_registrations', info: { session_id: session.id } } });
    expect([created.status, created.body.download.state]).toEqual([201, 'pending']);
    // A deleted live course's session is not found (docs/jobs.md "Downloads"): scheduling refuses the worker's pages.
    expect((await api.delete(`/api/author/live_courses/${live.id}`)).status).toBe(204);

    const port = await freePortBlock(1);
    worker = spawnWorkerProcess('dist/apps/jobs-worker/main.js', { databaseUrl: db.url, natsUrl: natsUrl!, namespace, healthPort: port });
    await readyOn(port);
    // Retried, the attempts alone are 2 s and 10 s apart, and the job is given up 30 s after the third.
    const failed = await eventually(async () => {
      const res = await api.get(`/api/downloads/${created.body.download.id}`);
      return res.body.download.state === 'failed' ? res.body.download : undefined;
    }, 8_000, 100);
    expect(failed).toMatchObject({ state: 'failed', url: null });
    const [job] = await db.query<{ attempts: number; error_messages: string[] }>('SELECT attempts, error_messages FROM jobs.jobs WHERE id = $1', [created.body.download.id]);
    expect(job).toEqual({ attempts: 1, error_messages: [expect.stringMatching(/^SESSION_NOT_FOUND: /)] });
  });
});
