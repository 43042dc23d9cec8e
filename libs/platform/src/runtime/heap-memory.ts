import { performance } from 'node:perf_hooks';
import type { Logger } from '../observability/logger.js';

/** How often the event loop's load is looked at. */
const WINDOW_MS = 5_000;
/**
 * Quiet windows in a row before a trim (30 s). After the trim's collection the code runs cold: the next few
 * seconds of requests cost up to three times the CPU (docs/performance.md, "Fifth round"; which part of the
 * collection does it was not pinned down). Traffic with pauses of a few seconds must not pay that after
 * every pause; a process quiet for half a minute can.
 */
const QUIET_WINDOWS = 6;
/**
 * A window is quiet when the event loop was busy for less than this share of it. An idle all-in-one, with
 * every deployable's relays and sweeps polling in one process, sits at 1.4–1.7%.
 */
const QUIET_UTILIZATION = 0.05;
/** Growth of the resident set since the last trim that is worth giving back (a trim costs 30–60 ms of CPU). */
const GROWTH_BYTES = 8 * 1024 * 1024;

/** `gc` as `--expose-gc` defines it: a scavenge, or V8's memory-reducing collection. */
type ExposedGc = (options: { type: 'minor'; execution: 'sync' } | { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

const exposedGc = (): ExposedGc | undefined => {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as ExposedGc) : undefined;
};

/** Bytes a stream passes between two scavenges (`scavengingEvery`). */
const SCAVENGE_EVERY_BYTES = 4 * 1024 * 1024;

/**
 * `source`'s chunks as they pass, with a scavenge every 4 MiB of them. Streaming a large file allocates a
 * copy or two of every chunk on its way (socket reads, the object store's chunking, the NATS client's
 * frames) that dies at once; V8 frees such buffers at the next scavenge, and a stream's own small objects do
 * not fill the young generation often enough to bring one, so a 200 MB upload left up to 70 MiB of them
 * waiting (docs/performance.md, "SCORM upload"). A scavenge costs about a millisecond. Without
 * `--expose-gc`, the chunks pass as they are.
 */
export async function* scavengingEvery<T extends Uint8Array>(source: AsyncIterable<T> | Iterable<T>, bytes = SCAVENGE_EVERY_BYTES): AsyncGenerator<T> {
  const gc = exposedGc();
  let passed = 0;
  let scavengeAt = bytes;
  for await (const chunk of source) {
    passed += chunk.length;
    if (gc && passed >= scavengeAt) {
      gc({ type: 'minor', execution: 'sync' });
      scavengeAt = passed + bytes;
    }
    yield chunk;
  }
}

/**
 * Gives the memory of a busy spell back once the process is quiet. V8 keeps the heap pages a load peak
 * needed pooled until a memory-reducing collection, and its own memory reducer keeps deferring that one
 * while it still counts the spell's allocation rate: a gateway that peaked at 140 MiB of heap under load
 * stayed at 250 MiB resident for minutes of idleness (docs/performance.md, "Idle memory"). After
 * `quietWindows` windows in a row in which the event loop was almost idle, if the resident set grew since
 * the last trim, this runs that collection once (tens of milliseconds, while nothing waits). It needs
 * `--expose-gc`, which every deployable is started with; without it, it does nothing.
 */
export function trimHeapWhenIdle(logger: Logger, windowMs = WINDOW_MS, quietWindows = QUIET_WINDOWS): void {
  const gc = exposedGc();
  if (!gc) {
    logger.debug('node runs without --expose-gc: idle memory is not given back');
    return;
  }
  // The first quiet stretch after start trims what starting up left.
  let trimmedAt = 0;
  let last = performance.eventLoopUtilization();
  let quietInARow = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    quietInARow = performance.eventLoopUtilization(now, last).utilization < QUIET_UTILIZATION ? quietInARow + 1 : 0;
    last = now;
    if (quietInARow < quietWindows) return;
    const before = process.memoryUsage.rss();
    if (before < trimmedAt + GROWTH_BYTES) return;
    const started = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    trimmedAt = process.memoryUsage.rss();
    // The collection's own time must not count as load in the next window.
    last = performance.eventLoopUtilization();
    logger.debug({ beforeMiB: Math.round(before / 1048576), afterMiB: Math.round(trimmedAt / 1048576), ms: Math.round(performance.now() - started) }, 'gave idle memory back');
  }, windowMs);
  timer.unref();
}
