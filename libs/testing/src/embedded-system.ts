import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './http-client.js';
import { freePortBlock } from './ports.js';

/**
 * `npm start` as a user runs it: the built all-in-one on its embedded Postgres under a data folder, no
 * NATS, in a process group of its own (so a test can SIGKILL it with its Postgres). Needs the build.
 */
export interface EmbeddedSystemHome {
  dataDir: string;
  port: number;
  baseUrl: string;
  /** The embedded Postgres, reachable while a system runs on this home. */
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  /** Starts the all-in-one on this home and waits until `/readyz` answers 200. */
  start(): Promise<ChildProcess>;
  /** Waits until no process of the group is left (the embedded Postgres included). */
  gone(proc: ChildProcess): Promise<void>;
  /** Kills whatever still runs and removes the data folder. */
  remove(): Promise<void>;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function embeddedSystemHome(options: { token?: string; env?: NodeJS.ProcessEnv } = {}): Promise<EmbeddedSystemHome> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lms-embedded-'));
  // mkdtemp makes it 0700; as root, the embedded Postgres runs as the `postgres` user, who must enter it.
  await chmod(dataDir, 0o755);
  const port = await freePortBlock(2);
  const postgresPort = port + 1;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    EMBEDDED_POSTGRES_PORT: String(postgresPort),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    ...(options.token ? { BOOTSTRAP_ADMIN_TOKEN: options.token } : {}),
    ...options.env,
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const running = new Set<ChildProcess>();

  const gone = async (proc: ChildProcess) => {
    await eventually(async () => (groupAlive(proc.pid!) ? undefined : true), 30_000, 50);
    running.delete(proc);
  };

  return {
    dataDir,
    port,
    baseUrl,
    databaseUrl: `postgres://postgres:postgres@127.0.0.1:${postgresPort}/postgres`,
    env,
    async start() {
      const proc = spawn(process.execPath, ['dist/apps/all-in-one/main.js'], { env, detached: true, stdio: ['ignore', 'ignore', 'inherit'] });
      running.add(proc);
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      await Promise.race([
        eventually(async () => ((await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000, 100),
        exited.then(() => Promise.reject(new Error('the all-in-one exited before it was ready'))),
      ]);
      return proc;
    },
    gone,
    async remove() {
      for (const proc of running) {
        if (proc.pid && groupAlive(proc.pid)) {
          process.kill(-proc.pid, 'SIGKILL');
          await gone(proc).catch(() => undefined);
        }
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
