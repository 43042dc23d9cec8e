import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { EmbeddedPostgresError, startEmbeddedPostgres } from './embedded-postgres.js';

/** A port nothing listens on now (the testing library's helper would make this library depend on it). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined };
const asRoot = process.getuid?.() === 0 ? it : it.skip;

describe('embedded Postgres', () => {
  // Issue 11, finding 9: `npm start` as root with DATA_DIR in a private folder died with initdb's raw
  // "Permission denied" stack trace.
  asRoot('refuses, naming the fix, a data folder inside a folder the postgres user cannot enter (as root)', async () => {
    const closed = await mkdtemp(join(tmpdir(), 'lms-private-')); // mode 700, owned by root
    try {
      const failure = startEmbeddedPostgres(join(closed, '.data', 'postgres'), 1, quiet);
      await expect(failure).rejects.toThrow(EmbeddedPostgresError);
      await expect(failure).rejects.toThrow(new RegExp(`cannot enter ${closed}.*DATA_DIR`));
    } finally {
      await rm(closed, { recursive: true, force: true });
    }
  });

  it("refuses, naming the process, a data folder whose server a running process owns (not one a killed process left)", async () => {
    const home = await mkdtemp(join(tmpdir(), 'lms-owned-'));
    await chmod(home, 0o755); // as root the server runs as postgres, who must enter it
    const dir = join(home, 'postgres');
    const port = await freePort();
    const running = await startEmbeddedPostgres(dir, port, quiet);
    try {
      const second = startEmbeddedPostgres(dir, port, quiet);
      await expect(second).rejects.toThrow(EmbeddedPostgresError);
      await expect(second).rejects.toThrow(new RegExp(`in use: the embedded Postgres of a running process \\(pid ${process.pid}\\)`));
    } finally {
      await running.stop();
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it("leaves alone, and refuses, a process its folder's stale postmaster.pid names that is not its Postgres (a reused pid)", async () => {
    const home = await mkdtemp(join(tmpdir(), 'lms-stale-'));
    await chmod(home, 0o755);
    const dir = join(home, 'postgres');
    const port = await freePort();
    await (await startEmbeddedPostgres(dir, port, quiet)).stop();
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, 'postmaster.pid'), `${stranger.pid}\n${dir}\n0\n${port}\n`);
      await expect(startEmbeddedPostgres(dir, port, quiet)).rejects.toThrow(`names process ${stranger.pid}, which is not its Postgres`);
      expect(stranger.exitCode === null && stranger.signalCode === null).toBe(true);
    } finally {
      stranger.kill('SIGKILL');
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);
});
