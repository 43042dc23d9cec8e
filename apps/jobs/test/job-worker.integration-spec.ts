import { existsSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { Objm } from '@nats-io/obj';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JOBS_WORKER_CONSUMER } from '@lms/contracts';
import { createBus, createLogger, type Database, filesBucket, loadConfig, type MessageBus, ObjectFileStore, openDatabase, Outbox, OutboxRelay } from '@lms/platform';
import { createTestDatabase, deleteNamespaceStreams, eventually, freePortBlock, holdingLock, queryDatabase, readyOn, spawnWorkerProcess, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestDatabase, uniqueName, type WorkerProcess } from '@lms/testing';
import { enqueueJob } from '../src/jobs/job-queue.js';
import { JOBS_MIGRATIONS } from '../src/jobs.module.js';

// Two jobs-worker processes (with the test job kinds of apps/jobs-worker/test/test-worker.mjs) share the
// work queue on a real NATS server; jobs are recorded and relayed as the jobs service does.
const natsUrl = testNatsUrl();
const built = existsSync('dist/apps/jobs-worker/main.js');
const describeWithNats = natsUrl && built ? describe : describe.skip;

interface JobRow {
  status: string;
  attempts: number;
  error_messages: string[];
  file_key: string | null;
  file_size: string | null;
  progress: number;
}

describeWithNats('jobs-worker: a work queue shared by replicas', () => {
  const namespace = uniqueName('jobs');
  const scope = { accountId: 1 };
  let testDb: TestDatabase;
  let db: Database;
  let outbox: Outbox;
  let relay: OutboxRelay;
  let bus: MessageBus;
  let nc: NatsConnection;
  const workers: WorkerProcess[] = [];

  const launch = (healthPort: number): WorkerProcess => {
    const worker = spawnWorkerProcess('apps/jobs-worker/test/test-worker.mjs', { databaseUrl: testDb.url, natsUrl: natsUrl!, namespace, healthPort });
    workers.push(worker);
    return worker;
  };
  /** Two workers share the queue at the start of each test (a test may kill one). */
  const twoLiveWorkers = async (): Promise<void> => {
    const missing = 2 - workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null).length;
    if (missing <= 0) return;
    const first = await freePortBlock(missing);
    const ports = Array.from({ length: missing }, (_, i) => first + i);
    for (const port of ports) launch(port);
    await Promise.all(ports.map(readyOn));
  };
  const holderOf = (id: string, attempt: number) =>
    eventually(async () => workers.find((w) => w.output.some((line) => line.startsWith(`running ${id} attempt ${attempt}`))), 20_000, 50);
  const objectsOf = async (id: string) => {
    const store = await new Objm(nc).open(filesBucket(namespace));
    return (await store.list()).filter((o) => o.name.startsWith(`jobs/${id}/`)).map((o) => o.name);
  };
  const doneRow = (id: string) =>
    eventually(async () => {
      const row = await jobRow(id);
      return row.status === 'done' ? row : undefined;
    }, 30_000, 100);
  const jobRow = async (id: string) => (await queryDatabase<JobRow>(testDb.url, 'SELECT status, attempts, error_messages, file_key, file_size, progress FROM jobs.jobs WHERE id = $1', [id]))[0];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const logger = createLogger('silent');
    db = await openDatabase({ url: testDb.url, schema: 'jobs', entities: [], migrations: JOBS_MIGRATIONS, logger });
    outbox = new Outbox(db, 'jobs');
    bus = await createBus(loadConfig({ NATS_URL: natsUrl, NATS_NAMESPACE: namespace, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY }), 'jobs', logger);
    await bus.events.ensureStreams();
    relay = new OutboxRelay(db, bus.events, logger);
    outbox.onAdded(() => relay.nudge());
    relay.start();
    nc = await connect({ servers: natsUrl });
  }, 90_000);

  beforeEach(() => twoLiveWorkers(), 90_000);

  afterAll(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await relay?.stop();
    await bus?.close();
    await nc?.close();
    await db?.close();
    await deleteNamespaceStreams(natsUrl!, namespace);
    await testDb?.drop();
  });

  it('finishes a job once, with one file, after the worker holding it is killed with SIGKILL', async () => {
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.slow', params: { chunks: 20, delayMs: 150 } });
    const holder = await holderOf(id, 1);
    await eventually(async () => ((await jobRow(id)).progress >= 10 ? true : undefined), 20_000, 50); // mid-run, part of the file written
    holder.child.kill('SIGKILL');
    await holder.exited;

    const done = await doneRow(id);
    const survivor = workers.find((w) => w !== holder && w.output.some((line) => line.startsWith(`running ${id} `)))!;
    expect(survivor.output.filter((line) => line.startsWith(`running ${id} `))).toEqual([`running ${id} attempt 2`]);
    expect(done.attempts).toBe(2);
    expect(done.error_messages).toEqual(['attempt 1 stopped before it finished (its worker was lost)']);
    expect(done.file_key).toBe(`jobs/${id}/2/slow.txt`);

    const expected = Array.from({ length: 20 }, (_, i) => `chunk ${i}\n`).join('');
    const file = await new ObjectFileStore(nc, namespace, false).open(done.file_key!);
    expect(await text(file!.stream)).toBe(expected);
    expect(Number(done.file_size)).toBe(expected.length);
    // One object in the bucket for the job: the first attempt's unfinished put left none.
    expect(await objectsOf(id)).toEqual([`jobs/${id}/2/slow.txt`]);
  }, 60_000);

  it('removes the file of an attempt killed after storing it and before recording it, once a later attempt is done', async () => {
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.slow', params: { chunks: 5, delayMs: 50, firstHoldsMs: 30_000 } });
    const holder = await holderOf(id, 1);
    await eventually(async () => (holder.output.includes(`stored ${id} attempt 1`) ? true : undefined), 20_000, 50);
    expect(await objectsOf(id)).toEqual([`jobs/${id}/1/slow.txt`]);
    holder.child.kill('SIGKILL');
    await holder.exited;

    const done = await doneRow(id);
    expect(done.attempts).toBe(2);
    expect(done.file_key).toBe(`jobs/${id}/2/slow.txt`);
    expect(await objectsOf(id)).toEqual([`jobs/${id}/2/slow.txt`]);
  }, 60_000);

  it('lets a worker that lost its lease and lives on neither settle the job nor its event, nor replace its file', async () => {
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.slow', params: { chunks: 20, delayMs: 150 } });
    const stalled = await holderOf(id, 1);
    await eventually(async () => ((await jobRow(id)).progress >= 10 ? true : undefined), 20_000, 50);
    // A stalled process (a paused VM, a long pause) renews no lease: the other worker takes the job over.
    stalled.child.kill('SIGSTOP');
    const successor = await holderOf(id, 2);
    expect(successor).not.toBe(stalled);
    successor.child.kill('SIGSTOP');
    stalled.child.kill('SIGCONT');
    // The stalled worker runs on to the end and stores its attempt's file, finds the job owned by attempt 2,
    // and removes that file.
    await eventually(async () => (stalled.output.includes(`stored ${id} attempt 1`) ? true : undefined), 20_000, 50);
    await eventually(async () => ((await objectsOf(id)).length === 0 ? true : undefined), 10_000, 50);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await jobRow(id)).toMatchObject({ status: 'running', attempts: 2 });
    // Had it acknowledged its delivery, JetStream would have settled attempt 2's with it, and with attempt
    // 2's worker gone the job would stay `running` for ever.
    successor.child.kill('SIGKILL');
    await successor.exited;

    const done = await doneRow(id);
    expect(stalled.output.filter((line) => line.startsWith(`running ${id} `))).toEqual([`running ${id} attempt 1`, `running ${id} attempt 3`]);
    expect(done.attempts).toBe(3);
    expect(done.error_messages).toEqual(['attempt 1 stopped before it finished (its worker was lost)', 'attempt 2 stopped before it finished (its worker was lost)']);
    expect(await objectsOf(id)).toEqual([`jobs/${id}/3/slow.txt`]);
  }, 60_000);

  it('lets a delivery overtaken between reading its job and taking it neither take it back nor run it', async () => {
    // With both workers paused the job waits in the queue, and its row is locked before either reads it: the
    // worker that gets the delivery reads the job, then waits at its claim, as one stalled there would.
    for (const w of workers) w.child.kill('SIGSTOP');
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.slow', params: { chunks: 2, delayMs: 10 } });
    await holdingLock(testDb.url, 'SELECT 1 FROM jobs.jobs WHERE id = $1 FOR UPDATE', [id], async (newer) => {
      for (const w of workers) w.child.kill('SIGCONT');
      await newer.waiters(1, 20_000);
      // What a newer delivery's claim writes, committed while the first one waits at its own.
      await newer.query(`UPDATE jobs.jobs SET status = 'running', attempts = 2 WHERE id = $1`, [id]);
      await newer.release();
    });
    // Attempt 2 (simulated here) never finishes, so the log's next delivery takes the job over.
    const done = await doneRow(id);
    expect(workers.flatMap((w) => w.output.filter((line) => line.startsWith(`running ${id} `)))).toEqual([`running ${id} attempt 3`]);
    expect(done.attempts).toBe(3);
    expect(done.error_messages).toEqual(['attempt 2 stopped before it finished (its worker was lost)']);
  }, 60_000);

  it('removes the file of a run whose job was deleted while it ran (a newer data dump replaced it): no row names it', async () => {
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.slow', params: { chunks: 10, delayMs: 100 } });
    const holder = await holderOf(id, 1);
    await eventually(async () => ((await jobRow(id))?.progress >= 10 ? true : undefined), 20_000, 50);
    await queryDatabase(testDb.url, 'DELETE FROM jobs.jobs WHERE id = $1', [id]);
    // The run goes on to the end and stores its file; then it finds its job gone.
    await eventually(async () => (holder.output.includes(`stored ${id} attempt 1`) ? true : undefined), 20_000, 50);
    await eventually(async () => ((await objectsOf(id)).length === 0 ? true : undefined), 10_000, 100);
  }, 60_000);

  it('ends a job that keeps failing `failed` with each attempt\'s error after bounded retries, and dead-letters it', async () => {
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.fail' });
    const failed = await eventually(async () => {
      const row = await jobRow(id);
      return row.status === 'failed' ? row : undefined;
    }, 30_000, 100);
    expect(failed.attempts).toBe(3);
    expect(failed.error_messages).toEqual(['attempt 1: boom on attempt 1', 'attempt 2: boom on attempt 2', 'attempt 3: boom on attempt 3', 'gave up after 3 attempts']);
    const letters = await eventually(async () => {
      const all = await bus.events.deadLetters(JOBS_WORKER_CONSUMER);
      const mine = all.filter((l) => (l.event.data as { job_id: string }).job_id === id);
      return mine.length > 0 ? mine : undefined;
    }, 10_000, 100);
    expect(letters).toHaveLength(1);
  }, 60_000);

  it('ends a given-up job `failed`, undone, when the worker undoing it is killed: the next delivery undoes it again', async () => {
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.abandon', params: { holdMs: 60_000 } });
    const undoing = await eventually(async () => workers.find((w) => w.output.includes(`abandoning ${id} delivery 4`)), 30_000, 50);
    undoing.child.kill('SIGKILL');
    await undoing.exited;
    const failed = await eventually(async () => {
      const row = await jobRow(id);
      return row.status === 'failed' ? row : undefined;
    }, 30_000, 100);
    expect(failed.error_messages).toEqual(['attempt 1: boom on attempt 1', 'attempt 2: boom on attempt 2', 'attempt 3: boom on attempt 3', 'gave up after 3 attempts']);
    expect(workers.some((w) => w.output.includes(`abandoning ${id} delivery 5`))).toBe(true);
    await eventually(async () => ((await bus.events.deadLetters(JOBS_WORKER_CONSUMER)).some((l) => (l.event.data as { job_id: string }).job_id === id) ? true : undefined), 20_000, 100);
  }, 90_000);
});
