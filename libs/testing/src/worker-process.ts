import { type ChildProcess, spawn } from 'node:child_process';
import { eventually } from './http-client.js';
import { TEST_CONTEXT_SIGNING_KEY } from './infra.js';

/** A jobs-worker process a spec started: its stdout lines (what the worker script reports) and its exit. */
export interface WorkerProcess {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

export interface WorkerProcessOptions {
  databaseUrl: string;
  natsUrl: string;
  namespace: string;
  healthPort: number;
  /** More settings of the worker's (`IMPORT_ALLOW_PRIVATE_ADDRESSES`, ...). */
  env?: Record<string, string>;
}

/**
 * Starts a worker script (a jobs-worker with a spec's job kinds) as its own process on the spec's database
 * and NATS namespace, as a replica runs in Kubernetes, so a spec can kill it with SIGKILL mid-job.
 */
export function spawnWorkerProcess(script: string, { databaseUrl, natsUrl, namespace, healthPort, env: more = {} }: WorkerProcessOptions): WorkerProcess {
  const env = { ...more, PATH: process.env.PATH, DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_NAMESPACE: namespace, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY, LOG_LEVEL: 'error', HOST: '127.0.0.1', HEALTH_PORT: String(healthPort) };
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const output: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => output.push(...chunk.split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Resolves once the process's health port answers /readyz with 200 (60 s at the most). */
export const readyOn = (healthPort: number) =>
  eventually(async () => ((await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000, 200);
