import { createConnection } from 'node:net';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Started {
  stop(): Promise<void>;
}

// Global setup and teardown run in the same process but load modules apart; state lives on globalThis.
const state = globalThis as typeof globalThis & { __lmsTestInfra?: Started[] };

function reachable(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function containerRuntime(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

const quietLog = { debug: () => undefined, info: () => undefined, warn: (_fields: object, message: string) => process.stderr.write(`embedded postgres: ${message}\n`) };

async function startPostgres(useContainers: boolean): Promise<{ url: string } & Started> {
  if (useContainers) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').withDatabase('postgres').start();
    return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
  }
  // Loaded only when needed; it resolves to the built lib (npm test builds first).
  const { startEmbeddedPostgres } = await import('@lms/embedded-postgres');
  const dir = await mkdtemp(join(tmpdir(), 'lms-test-pg-'));
  // mkdtemp makes it 0700; as root, Postgres runs as the `postgres` user, who must be able to enter it.
  await chmod(dir, 0o755);
  // Below Linux's ephemeral range (32768+), where outgoing connections could be holding it.
  const port = 10000 + Math.floor(Math.random() * 20000);
  const server = await startEmbeddedPostgres(join(dir, 'data'), port, quietLog).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  return { url: server.url, stop: async () => { await server.stop(); await rm(dir, { recursive: true, force: true }); } };
}

async function startNats(): Promise<{ url: string } & Started> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('nats:2.10-alpine').withCommand(['-js']).withExposedPorts(4222).withWaitStrategy(Wait.forLogMessage(/Server is ready/)).start();
  return { url: `nats://${container.getHost()}:${container.getMappedPort(4222)}`, stop: async () => void (await container.stop()) };
}

/**
 * Design §8: TEST_DATABASE_URL / TEST_NATS_URL when given; else testcontainers when a container runtime
 * answers; else embedded Postgres, and for NATS a server on the default local port, else the in-process bus
 * (TEST_NATS_URL set to the empty string). Workers inherit the variables.
 */
export default async function globalSetup(): Promise<void> {
  const started: Started[] = (state.__lmsTestInfra = []);
  const needsPostgres = !process.env.TEST_DATABASE_URL;
  const needsNats = process.env.TEST_NATS_URL === undefined;
  const useContainers = (needsPostgres || needsNats) && (await containerRuntime());
  if (needsPostgres) {
    const postgres = await startPostgres(useContainers);
    started.push(postgres);
    process.env.TEST_DATABASE_URL = postgres.url;
  }
  if (needsNats) {
    if (useContainers) {
      const nats = await startNats();
      started.push(nats);
      process.env.TEST_NATS_URL = nats.url;
    } else {
      process.env.TEST_NATS_URL = (await reachable('127.0.0.1', 4222)) ? 'nats://127.0.0.1:4222' : '';
    }
  }
  const nats = process.env.TEST_NATS_URL || 'in-process bus (no NATS server found)';
  process.stdout.write(`\ntest infrastructure: Postgres ${redact(process.env.TEST_DATABASE_URL!)}, NATS ${nats}\n`);
}

const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
