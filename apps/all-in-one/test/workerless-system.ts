import { existsSync } from 'node:fs';
import { loadConfig } from '@lms/platform';
import { ApiClient, createTestDatabase, deleteNamespaceStreams, freePortBlock, readyOn, spawnWorkerProcess, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestDatabase, uniqueName, type WorkerProcess } from '@lms/testing';
import { startSystem, type System } from '../src/host.js';

const natsUrl = testNatsUrl();

/** Specs of real jobs-worker processes need a NATS server and the build (`npm test` makes it first). */
export const describeWithWorkers = natsUrl && existsSync('dist/apps/jobs-worker/main.js') ? describe : describe.skip;

/**
 * The system in this process without its jobs-worker, on the test NATS server in a namespace of its own, and the
 * jobs-worker processes a spec starts beside it (as deployed: their requests cross NATS, under its limits).
 */
export interface WorkerlessSystem {
  db: TestDatabase;
  system: System;
  api: ApiClient;
  /** Starts `script` (a jobs-worker entry point) on this system and waits until it is ready. */
  startWorker(script?: string, env?: Record<string, string>): Promise<WorkerProcess>;
  /** SIGKILLs the workers, then stops the system and drops what it made. */
  close(): Promise<void>;
}

export async function startWorkerlessSystem(name: string): Promise<WorkerlessSystem> {
  const namespace = uniqueName(name);
  const token = `bootstrap_${uniqueName('token')}`;
  const db = await createTestDatabase();
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
  const system = await startSystem({ config, without: ['jobs-worker'] });
  const workers: WorkerProcess[] = [];
  return {
    db,
    system,
    api: new ApiClient(system.url, token),
    async startWorker(script = 'dist/apps/jobs-worker/main.js', env = {}) {
      const healthPort = await freePortBlock(1);
      const worker = spawnWorkerProcess(script, { databaseUrl: db.url, natsUrl: natsUrl!, namespace, healthPort, env });
      workers.push(worker);
      await readyOn(healthPort);
      return worker;
    },
    async close() {
      for (const w of workers) w.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await system.close();
      await deleteNamespaceStreams(natsUrl!, namespace);
      await db.drop();
    },
  };
}
