import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortBlock } from '@lms/testing';

// The built entry points, as `npm start` and the images run them (`npm test` builds first).
const built = existsSync('dist/apps/all-in-one/main.js') && existsSync('dist/apps/gateway/main.js');
const describeBuilt = built ? describe : describe.skip;

interface Outcome {
  code: number | null;
  stderr: string;
}

/** Runs an entry point with exactly `env` (plus PATH) and waits for it to stop on its own. */
function run(app: string, env: Record<string, string>): Promise<Outcome> {
  const child = spawn(process.execPath, [`dist/apps/${app}/main.js`], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A process that did start instead of stopping is killed, and the test fails on its exit code.
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describeBuilt('a missing setting stops the process with a message naming it (issue 11, finding 1)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lms-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('all-in-one with an empty DATABASE_URL exits 1 and starts no embedded Postgres', async () => {
    // Before the fix this started an embedded Postgres: give it a free port so it fails on the timeout, not a clash.
    const outcome = await run('all-in-one', { DATABASE_URL: '', DATA_DIR: dataDir, PORT: '0', EMBEDDED_POSTGRES_PORT: String(await freePortBlock(1)) });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('configuration error: DATABASE_URL is set but empty');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  });

  it('all-in-one with NATS_URL but no DATABASE_URL exits 1 instead of serving the shared bus from an empty database', async () => {
    const outcome = await run('all-in-one', { NATS_URL: 'nats://127.0.0.1:4222', CONTEXT_SIGNING_KEY: 'k'.repeat(32), DATA_DIR: dataDir, PORT: '0' });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('configuration error: DATABASE_URL must be set when NATS_URL is set');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  });

  it('all-in-one with an empty NATS_URL exits 1', async () => {
    const outcome = await run('all-in-one', { NATS_URL: '', DATA_DIR: dataDir, PORT: '0' });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('configuration error: NATS_URL is set but empty');
  });

  it('the gateway alone with NATS_URL but no CONTEXT_SIGNING_KEY exits 1, naming the key', async () => {
    const outcome = await run('gateway', { NATS_URL: 'nats://127.0.0.1:4222', PORT: '0' });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('configuration error: CONTEXT_SIGNING_KEY must be set when NATS_URL is set');
  });
});
