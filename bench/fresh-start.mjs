// `npm start` as a newcomer meets it: a fresh clone of this checkout's HEAD (no build output, no .data),
// its node_modules as `npm ci` leaves them (copied from this checkout), then the time from `npm start` to
// `/readyz` answering 200, build and embedded Postgres initdb included. Issue 21 wants it within 10 s.
// Run: node bench/fresh-start.mjs [runs=3]
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './processes.mjs';

const runs = Number(process.argv[2] ?? 3);
const clone = mkdtempSync(join(tmpdir(), 'lms-fresh-start-'));
// Run as root, the embedded Postgres runs as `postgres`, which must be able to enter the data folder.
chmodSync(clone, 0o755);
execFileSync('git', ['clone', '--quiet', '--no-hardlinks', process.cwd(), clone]);
// cp -a keeps the workspace links (node_modules/@lms/* -> ../../libs/*) pointing into the clone.
execFileSync('cp', ['-a', 'node_modules', clone]);

async function once(dataDir) {
  rmSync(join(clone, 'dist'), { recursive: true, force: true });
  execFileSync('sh', ['-c', 'rm -rf libs/*/dist'], { cwd: clone });
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', HEALTH_PORT: String(await freePort()), EMBEDDED_POSTGRES_PORT: String(await freePort()), DATA_DIR: dataDir, BOOTSTRAP_ADMIN_TOKEN: 'fresh-start-bench-token-0123456789', LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.NATS_URL;
  const started = performance.now();
  const child = spawn('npm', ['start'], { cwd: clone, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${errors}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
      if (ok) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error('not ready within 120 s');
      await sleep(50);
    }
  } finally {
    if (child.exitCode === null) {
      process.kill(-child.pid, 'SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
}

try {
  for (let run = 1; run <= runs; run += 1) {
    const fresh = await once(join(clone, '.data', `fresh-${run}`));
    const again = await once(join(clone, '.data', `fresh-${run}`));
    console.log(`npm start, fresh clone: ready ${(fresh / 1000).toFixed(1)} s on a fresh DATA_DIR, ${(again / 1000).toFixed(1)} s on the same folder again`);
  }
} finally {
  rmSync(clone, { recursive: true, force: true });
}
