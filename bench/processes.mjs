// Child processes of a bench run: started with this very node binary, their output kept (bounded) for
// error reports, and always stopped: SIGTERM, then SIGKILL if they have not ended in time.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { requestJson } from './load.mjs';

const OUTPUT_LIMIT = 32 * 1024;
/** Units of /proc/<pid>/stat times; 100 on every common Linux, asked once in case it is not. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
const live = new Set();

/** Ports handed out by freePort: a child binds its port a moment later, and the OS may offer it again meanwhile. */
const handedOut = new Set();

/** A port free on loopback right now (the OS picks it; the child binds it a moment later), never one already handed out. */
export async function freePort() {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = net.createServer();
      server.unref();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address();
        server.close(() => resolve(port));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/**
 * Starts `node [nodeArgs] <script>` with `env` added to this process's environment.
 * @returns {{ name: string, child: import('node:child_process').ChildProcess, output: () => string, exited: Promise<void> }}
 */
export function startChild(name, script, env, nodeArgs = []) {
  // process.execPath: `npm run bench` runs node 24 from node_modules/.bin, which the build targets.
  const child = spawn(process.execPath, [...nodeArgs, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output += chunk.toString('utf8');
    if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', () => resolve()));
  const handle = { name, child, output: () => output, exited };
  live.add(handle);
  void exited.then(() => live.delete(handle));
  return handle;
}

const hasExited = ({ child }) => child.exitCode !== null || child.signalCode !== null;

/** SIGTERM (the deployables drain and close), then SIGKILL after `graceMs`. */
export async function stopChild(handle, graceMs = 10_000) {
  if (hasExited(handle)) return;
  handle.child.kill('SIGTERM');
  const ended = await Promise.race([handle.exited.then(() => true), sleep(graceMs, false)]);
  if (ended) return;
  process.stderr.write(`bench: ${handle.name} did not stop within ${graceMs} ms of SIGTERM: SIGKILL\n`);
  handle.child.kill('SIGKILL');
  await Promise.race([handle.exited, sleep(5_000)]);
}

export const stopChildren = (handles) => Promise.all(handles.map((handle) => stopChild(handle)));

/** Every child still running, for the last-resort cleanup. */
export const liveChildren = () => [...live];

/** Synchronous last resort (process 'exit'): nothing this run started may outlive it. */
export function killAllNow() {
  for (const handle of live) if (!hasExited(handle)) handle.child.kill('SIGKILL');
}

/** Polls `url` until it answers 200; fails at once if the child dies, and after `timeoutMs` at the latest. */
export async function waitReady(handle, url, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (hasExited(handle)) throw new Error(`${handle.name} exited (code ${handle.child.exitCode ?? handle.child.signalCode}) before it was ready:\n${handle.output().slice(-4000)}`);
    try {
      const answer = await requestJson(url, { timeoutMs: 3_000 });
      if (answer.status === 200) return;
      last = `${answer.status} ${answer.text.slice(0, 300)}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(200);
  }
  throw new Error(`${handle.name} was not ready at ${url} within ${timeoutMs} ms (last: ${last}):\n${handle.output().slice(-4000)}`);
}

/**
 * CPU time (user + system, ms) the processes have used so far, from /proc (Linux); undefined elsewhere.
 * Unlike req/s, CPU per request barely moves when other work shares the machine.
 */
export function cpuTimeMs(handles) {
  let total = 0;
  try {
    for (const { child } of handles) total += processCpu(child.pid).ms;
  } catch {
    return undefined;
  }
  return total;
}

/**
 * A process's command name, CPU time (ms) and its exited children's (ms), from /proc/<pid>/stat; throws
 * when it is gone.
 */
function processCpu(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name: state is [0], utime [11], stime [12], cutime [13], cstime [14] (proc(5)).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ms = (a, b) => ((Number(fields[a]) + Number(fields[b])) * 1000) / CLOCK_TICKS;
  return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ms: ms(11, 12), exitedChildrenMs: ms(13, 14) };
}

/**
 * CPU time (ms) so far of this machine's NATS server and Postgres processes, which every topology's requests
 * also cost (the raw baseline's Postgres included); zero when they run elsewhere. A Postgres backend that
 * exited (a pool closing an idle connection) counts through its postmaster, which reaped it.
 */
export function infrastructureCpuMs() {
  const totals = { nats: 0, postgres: 0 };
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const { comm, ms, exitedChildrenMs } = processCpu(pid);
      if (comm === 'nats-server') totals.nats += ms;
      else if (comm === 'postgres') totals.postgres += ms + exitedChildrenMs;
    } catch {
      // gone since the listing
    }
  }
  return totals;
}

/** Resident memory (MiB) of the processes and all their descendants (embedded Postgres included), from /proc. */
export function residentMiB(handles, field = 'rss') {
  const seen = new Set();
  // RSS counts a page once per process that maps it; PSS splits a shared page between them, so the PSS of
  // a process tree (Postgres backends sharing shared_buffers and the binary, node processes sharing node)
  // adds up to the memory the tree really takes.
  const own = (pid) =>
    field === 'pss'
      ? Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0)
      : Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  const kib = (pid) => {
    if (seen.has(pid)) return 0;
    seen.add(pid);
    let total = 0;
    try {
      total += own(pid);
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) total += kib(Number(child));
      }
    } catch {
      // the process ended meanwhile
    }
    return total;
  };
  return handles.reduce((sum, { child }) => sum + kib(child.pid), 0) / 1024;
}

/**
 * Waits (at most `timeoutMs`) until the processes, the NATS server and Postgres are nearly idle: under
 * `maxBusy` of one core over a `sampleMs` sample. After a burst of writes, consumers, the relay and
 * autovacuum keep working for a while; a measurement started meanwhile would pay for them.
 * @returns {Promise<boolean>} whether they settled
 */
export async function waitQuiet(handles, { maxBusy = 0.05, sampleMs = 250, timeoutMs = 15_000 } = {}) {
  const busyMs = () => {
    const infra = infrastructureCpuMs();
    return (cpuTimeMs(handles) ?? 0) + infra.nats + infra.postgres;
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const before = busyMs();
    await sleep(sampleMs);
    if (busyMs() - before <= maxBusy * sampleMs) return true;
  }
  return false;
}
