import { eventually } from '@lms/testing';
import { describeWithWorkers, startWorkerlessSystem, type WorkerlessSystem } from './workerless-system.js';

// The system in this process without its jobs-worker, so a download waits in the queue while what it names is
// deleted; then a real jobs-worker process takes it.
describeWithWorkers('a download whose subject is deleted before it runs', () => {
  let s: WorkerlessSystem;

  beforeAll(async () => {
    s = await startWorkerlessSystem('dlgone');
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('fails at once with the owning service\'s refusal, not after three attempts and their back-off', async () => {
    const live = (await s.api.post('/api/author/live_courses', { live_courses: [{ title: 'Gone live course' }] })).body.live_courses[0];
    const session = (await s.api.post(`/api/author/live_courses/${live.id}/sessions`, { sessions: [{ seats: 10 }] })).body.sessions[0];
    const created = await s.api.post('/api/downloads', { download: { download_type: 'session_registrations', info: { session_id: session.id } } });
    expect([created.status, created.body.download.state]).toEqual([201, 'pending']);
    // A deleted live course's session is not found (docs/jobs.md "Downloads"): scheduling refuses the worker's pages.
    expect((await s.api.delete(`/api/author/live_courses/${live.id}`)).status).toBe(204);

    await s.startWorker();
    // Retried, the attempts alone are 2 s and 10 s apart, and the job is given up 30 s after the third.
    const failed = await eventually(async () => {
      const res = await s.api.get(`/api/downloads/${created.body.download.id}`);
      return res.body.download.state === 'failed' ? res.body.download : undefined;
    }, 8_000, 100);
    expect(failed).toMatchObject({ state: 'failed', url: null });
    const [job] = await s.db.query<{ attempts: number; error_messages: string[] }>('SELECT attempts, error_messages FROM jobs.jobs WHERE id = $1', [created.body.download.id]);
    expect(job).toEqual({ attempts: 1, error_messages: [expect.stringMatching(/^SESSION_NOT_FOUND: /)] });
  });
});
