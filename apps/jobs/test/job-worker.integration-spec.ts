import { existsSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { Objm } from '@nats-io/obj';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JOBS_WORKER_CONSUMER } from '@lms/contracts';
import { createBus, createLogger, type Database, filesBucket, loadConfig, type MessageBus, ObjectFileStore, openDatabase, Outbox, OutboxRelay } from '@lms/platform';
import { createTestDatabase, deleteNamespaceStreams, eventually, freePortBlock, queryDatabase, readyOn, spawnWorkerProcess, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestDatabase, uniqueName, type WorkerProcess } from '@lms/testing';
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
    const port = await freePortBlock(2);
    launch(port);
    launch(port + 1);
    await Promise.all([readyOn(port), readyOn(port + 1)]);
  }, 90_000);

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
    const holder = await eventually(async () => workers.find((w) => w.output.some((line) => line.startsWith(`running ${id} attempt 1`))), 20_000, 50);
    await eventually(async () => ((await jobRow(id)).progress >= 10 ? true : undefined), 20_000, 50); // mid-run, part of the file written
    holder.child.kill('SIGKILL');
    await holder.exited;

    const done = await eventually(async () => {
      const row = await jobRow(id);
      return row.status === 'done' ? row : undefined;
    }, 30_000, 100);
    const survivor = workers.find((w) => w !== holder)!;
    expect(survivor.output.filter((line) => line.startsWith(`running ${id} `))).toEqual([`running ${id} attempt 2`]);
    expect(done.attempts).toBe(2);
    expect(done.error_messages).toEqual(['attempt 1 stopped before it finished (its worker was lost)']);
    expect(done.file_key).toBe(`jobs/${id}/slow.txt`);

    const expected = Array.from({ length: 20 }, (_, i) => `chunk ${i}\n`).join('');
    const file = await new ObjectFileStore(nc, namespace, false).open(done.file_key!);
    expect(await text(file!.stream)).toBe(expected);
    expect(Number(done.file_size)).toBe(expected.length);
    // One object in the bucket for the job: the second attempt replaced what the first had begun.
    const store = await new Objm(nc).open(filesBucket(namespace));
    const objects = (await store.list()).filter((o) => o.name.startsWith(`jobs/${id}/`));
    expect(objects.map((o) => o.name)).toEqual([`jobs/${id}/slow.txt`]);
  }, 60_000);

  it('removes the file of a run whose job was deleted while it ran (a newer data dump replaced it): no row names it', async () => {
    const id = await enqueueJob(db, outbox, scope, { kind: 'test.slow', params: { chunks: 10, delayMs: 100 } });
    const holder = await eventually(async () => workers.find((w) => w.output.some((line) => line.startsWith(`running ${id} attempt 1`))), 20_000, 50);
    await eventually(async () => ((await jobRow(id))?.progress >= 10 ? true : undefined), 20_000, 50);
    await queryDatabase(testDb.url, 'DELETE FROM jobs.jobs WHERE id = $1', [id]);
    // The run goes on to the end and stores its file; then it finds its job gone.
    await eventually(async () => (holder.output.includes(`stored ${id} attempt 1`) ? true : undefined), 20_000, 50);
    const store = await new Objm(nc).open(filesBucket(namespace));
    await eventually(async () => ((await store.list()).some((o) => o.name.startsWith(`jobs/${id}/`)) ? undefined : true), 10_000, 100);
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
});
