import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('./idle-heap-trim.ts', import.meta.url));

/**
 * A node process (type-stripped source, so the module runs as deployed) that allocates a burst of about
 * 200 MB of short-lived objects, then idles; it prints the trim's log lines and its resident set.
 */
const BURST = `
  import { trimHeapWhenIdle } from ${JSON.stringify(MODULE)};
  const lines = [];
  const logger = { debug: (fields, message) => lines.push({ ...(typeof fields === 'string' ? { message: fields } : { ...fields, message }) }) };
  trimHeapWhenIdle(logger, 200);
  let kept = [];
  for (let i = 0; i < 40; i++) kept.push(Array.from({ length: 100_000 }, (_, j) => ({ i, j, s: 'x' + j })));
  kept = null;
  setTimeout(() => { process.stdout.write(JSON.stringify({ lines, rssMiB: process.memoryUsage.rss() / 1048576 })); process.exit(0); }, 1500);
`;

function runBurst(flags: string[]): Promise<{ lines: Array<{ message: string; beforeMiB?: number; afterMiB?: number }>; rssMiB: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...flags, '--input-type=module', '-e', BURST], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

describe('trimHeapWhenIdle', () => {
  it('gives the memory of a burst back after a quiet window', async () => {
    const { lines, rssMiB } = await runBurst(['--expose-gc', '--max-semi-space-size=4']);
    const trim = lines.find((line) => line.message === 'gave idle memory back');
    expect(trim).toBeDefined();
    expect(trim!.afterMiB!).toBeLessThan(trim!.beforeMiB! - 50);
    expect(rssMiB).toBeLessThan(trim!.beforeMiB! - 50);
  }, 40_000);

  it('does nothing without --expose-gc, and says so', async () => {
    const { lines } = await runBurst(['--max-semi-space-size=4']);
    expect(lines.map((line) => line.message)).toEqual(['node runs without --expose-gc: idle memory is not given back']);
  }, 40_000);
});
