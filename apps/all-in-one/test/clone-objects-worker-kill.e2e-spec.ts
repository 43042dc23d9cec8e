import { eventually, holdingLock, type WorkerProcess } from '@lms/testing';
import { COURSES, courseRequest } from './catalog-fixture.js';
import { describeWithWorkers, startWorkerlessSystem, type WorkerlessSystem } from './workerless-system.js';

// The system in this process without its jobs-worker; two jobs-worker processes (clone-worker.mjs, the real
// clone executor) share the work queue on a real NATS server, and the one running the clone is killed with
// SIGKILL while catalog's copy step is under way.
describeWithWorkers('sub-account clone: a worker killed mid-clone', () => {
  let s: WorkerlessSystem;
  let workers: WorkerProcess[];

  beforeAll(async () => {
    s = await startWorkerlessSystem('clone');
    workers = [await s.startWorker('apps/all-in-one/test/clone-worker.mjs'), await s.startWorker('apps/all-in-one/test/clone-worker.mjs')];
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('finishes the clone once, on the surviving worker, with exactly one set of copies', async () => {
    for (const title of ['Kill course A', 'Kill course B']) expect((await s.api.post(COURSES, { course_templates: [courseRequest({ title })] })).status).toBe(201);
    const [{ id: root }] = await s.db.query<{ id: number }>("SELECT s.id FROM identity.sub_accounts s JOIN identity.accounts a ON a.id = s.account_id WHERE a.subdomain = 'default' AND s.is_root");

    // catalog's copy waits on this lock, so the clone is mid-way (sub-account made, catalog copying) when its worker dies.
    await holdingLock(s.db.url, 'LOCK TABLE catalog.course_templates IN EXCLUSIVE MODE', [], async (held) => {
      const res = await s.api.post('/api/admin/clone_objects', { clone_objects: [{ source_id: root, source_type: 'SubAccount', options: { subdomain: 'killed-division', name: 'Killed division' } }] });
      expect(res.status).toBe(201);
      const cloneId = res.body.clone_objects[0].id;
      const [{ job_id: jobId }] = await s.db.query<{ job_id: string }>('SELECT job_id FROM jobs.clone_objects WHERE id = $1', [cloneId]);
      const holder = await eventually(async () => workers.find((w) => w.output.includes(`running ${jobId} attempt 1`)), 20_000, 50);
      // The catalog step is waiting on the lock: the sub-account exists (hidden), the copies do not yet.
      await held.waiters(1, 10_000);
      holder.child.kill('SIGKILL');
      await holder.exited;
      await held.release('rollback'); // the dead worker's catalog step now commits its copies: the next attempt must not copy again

      const done = await eventually(async () => {
        const row = (await s.api.get(`/api/admin/clone_objects/${cloneId}`)).body.clone_objects?.[0];
        return row && ['complete', 'failed'].includes(row.state) ? row : undefined;
      }, 40_000, 100);
      expect(done).toMatchObject({ state: 'complete', destination_type: 'SubAccount' });
      expect(done.error_messages).toEqual(['attempt 1 stopped before it finished (its worker was lost)']);
      const survivor = workers.find((w) => w !== holder)!;
      expect(survivor.output.filter((line) => line.startsWith(`running ${jobId} `))).toEqual([`running ${jobId} attempt 2`]);

      // Exactly one set of copies, in exactly one new sub-account.
      const subAccounts = await s.db.query<{ id: number }>("SELECT id FROM identity.sub_accounts WHERE subdomain = 'killed-division' AND NOT cloning");
      expect(subAccounts).toEqual([{ id: done.destination_id }]);
      const copies = await s.db.query<{ title: string }>('SELECT title FROM catalog.course_templates WHERE sub_account_id = $1 ORDER BY title', [done.destination_id]);
      expect(copies).toEqual([{ title: 'Kill course A' }, { title: 'Kill course B' }]);
      const [{ n: all }] = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog.course_templates');
      expect(all).toBe(4);
      const listed = (await s.api.get(`${COURSES}?per_page=100`)).body.course_templates as { sub_account: { id: string } | null }[];
      expect(listed.filter((c) => c.sub_account?.id === String(done.destination_id))).toHaveLength(2);
    });
  }, 90_000);
});
