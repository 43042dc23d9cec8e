import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('./heap-memory.ts', import.meta.url));

/**
 * A node process (type-stripped source, so the module runs as deployed) that allocates a burst of a few
 * hundred MiB of objects, drops them, then idles; it prints the trim's log lines and its resident set.
 * Windows are 300 ms and a trim needs three quiet ones in a row. With `busyEveryMs`, the event loop is busy
 * for 120 ms that often (pauses of one quiet window, never three), for `busyForMs` after the burst.
 */
const BURST = ({ busyEveryMs = 0, busyForMs = 0 } = {}) => `
  import { trimHeapWhenIdle } from ${JSON.stringify(MODULE)};
  const lines = [];
  const logger = { debug: (fields, message) => lines.push({ at: performance.now(), ...(typeof fields === 'string' ? { message: fields } : { ...fields, message }) }) };
  trimHeapWhenIdle(logger, 300, 3);
  let kept = [];
  for (let i = 0; i < 40; i++) kept.push(Array.from({ length: 100_000 }, (_, j) => ({ i, j, s: 'x' + j })));
  kept = null;
  const quietFrom = performance.now() + ${busyForMs};
  const spin = () => {
    const until = performance.now() + 120;
    while (performance.now() < until);
  };
  if (${busyEveryMs} > 0) {
    spin();
    const busy = setInterval(() => (performance.now() >= quietFrom ? clearInterval(busy) : spin()), ${busyEveryMs});
  }
  setTimeout(() => { process.stdout.write(JSON.stringify({ lines, quietFrom, rssMiB: process.memoryUsage.rss() / 1048576 })); process.exit(0); }, ${busyForMs} + 2500);
`;

/** Streams 256 MiB of 128 KiB chunks, each copied as a NATS frame would be, and prints the peak of live buffers (MiB). */
const STREAM = (every: number) => `
  import { scavengingEvery } from ${JSON.stringify(MODULE)};
  async function* source() { for (let i = 0; i < 2048; i++) { yield Buffer.alloc(128 * 1024, i); await null; } }
  let peak = 0;
  for await (const chunk of scavengingEvery(source(), ${every})) {
    const frame = Buffer.from(chunk);
    if (frame.length > 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  }
  process.stdout.write(String(peak / 1048576));
`;

function runNode(flags: string[], script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...flags, '--input-type=module', '-e', script], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

async function runBurst(
  flags: string[],
  busy?: { busyEveryMs: number; busyForMs: number },
): Promise<{ lines: Array<{ at: number; message: string; beforeMiB?: number; afterMiB?: number }>; quietFrom: number; rssMiB: number }> {
  return JSON.parse(await runNode(flags, BURST(busy)));
}

describe('trimHeapWhenIdle', () => {
  it('gives the memory of a burst back after quiet windows', async () => {
    const { lines, rssMiB } = await runBurst(['--expose-gc', '--max-semi-space-size=4']);
    const trim = lines.find((line) => line.message === 'gave idle memory back');
    expect(trim).toBeDefined();
    expect(trim!.afterMiB!).toBeLessThan(trim!.beforeMiB! - 50);
    expect(rssMiB).toBeLessThan(trim!.beforeMiB! - 50);
  }, 40_000);

  it('waits for quiet windows in a row: a process busy between short pauses keeps its heap (and its warm code) until it goes quiet', async () => {
    const { lines, quietFrom } = await runBurst(['--expose-gc', '--max-semi-space-size=4'], { busyEveryMs: 600, busyForMs: 2000 });
    const trims = lines.filter((line) => line.message === 'gave idle memory back');
    expect(trims).toHaveLength(1);
    expect(trims[0].at).toBeGreaterThan(quietFrom);
  }, 40_000);

  it('does nothing without --expose-gc, and says so', async () => {
    const { lines } = await runBurst(['--max-semi-space-size=4']);
    expect(lines.map((line) => line.message)).toEqual(['node runs without --expose-gc: idle memory is not given back']);
  }, 40_000);
});

describe('scavengingEvery', () => {
  const FLAGS = ['--expose-gc', '--max-semi-space-size=4'];

  it('keeps the chunks a stream dropped from piling up', async () => {
    expect(Number(await runNode(FLAGS, STREAM(4 * 1024 * 1024)))).toBeLessThan(24);
  }, 40_000);

  it('is what keeps them down: without its scavenges the same stream holds several times as much', async () => {
    expect(Number(await runNode(FLAGS, STREAM(Number.MAX_SAFE_INTEGER)))).toBeGreaterThan(32);
  }, 40_000);
});
