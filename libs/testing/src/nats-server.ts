import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where nats-server is installed on the machines this runs on; NATS_SERVER_BIN overrides it. */
export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export const natsServerAvailable = (): boolean => existsSync(NATS_SERVER_BIN);

export interface OwnNatsServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface OwnNatsServerOptions {
  /** Server configuration after `port` and `jetstream` (an `authorization` block, say). */
  config: string;
  /** Environment of the server process: the `$VARIABLES` the configuration refers to. */
  env?: Record<string, string>;
  /** Ports to try, in order of preference, e.g. an engineer's own range. */
  ports: number[];
}

/** Whether something on 127.0.0.1 accepts a connection on `port`. */
export function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function listening(port: number, child: ChildProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    if (await portTaken(port)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * A nats-server of the test's own, with JetStream and the configuration given (users, permissions),
 * for tests that need what the shared server does not have. Its store lives in a temporary folder
 * removed on stop.
 */
export async function startOwnNatsServer({ config, env = {}, ports }: OwnNatsServerOptions): Promise<OwnNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'lms-nats-'));
  for (const port of ports) {
    if (await portTaken(port)) continue;
    const file = join(dir, `server-${port}.conf`);
    writeFileSync(file, `port: ${port}\nhost: "127.0.0.1"\njetstream { store_dir: ${JSON.stringify(join(dir, `js-${port}`))} }\n${config}`);
    let output = '';
    const child = spawn(NATS_SERVER_BIN, ['-c', file], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (await listening(port, child, 10_000)) {
      return {
        url: `nats://127.0.0.1:${port}`,
        port,
        async stop() {
          child.kill('SIGTERM');
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    await exited;
    // Another process took the port meanwhile: try the next one. A bad configuration fails on every port.
    if (/error|invalid|can not be found/i.test(output) && !/address already in use/i.test(output)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nats-server refused its configuration: ${output.trim()}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`no free port for nats-server among ${ports.length} tried`);
}
