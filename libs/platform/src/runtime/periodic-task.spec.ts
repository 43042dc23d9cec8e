import { createLogger } from '../observability/logger.js';
import { PeriodicTask } from './periodic-task.js';

describe('PeriodicTask', () => {
  const logger = createLogger('silent');

  it('never runs twice at once, and stop waits for the run in progress', async () => {
    let runs = 0;
    let finish: () => void = () => undefined;
    const task = new PeriodicTask('test', 60_000, () => {
      runs += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    }, logger);
    task.tick();
    task.tick();
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });

  it('keeps one timer when started twice, and stop ends it', async () => {
    let runs = 0;
    const task = new PeriodicTask('twice', 20, async () => {
      runs += 1;
    }, logger);
    task.start();
    task.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await task.stop();
    const atStop = runs;
    // One timer ticks at most 10 times in 200 ms (fewer on a busy machine); two would tick about 20.
    expect(atStop).toBeGreaterThanOrEqual(1);
    expect(atStop).toBeLessThanOrEqual(11);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(runs).toBe(atStop);
  });

  it('logs a failed run and runs again at the next tick', async () => {
    const warnings: unknown[] = [];
    const warn = { ...logger, warn: (...args: unknown[]) => void warnings.push(args) } as typeof logger;
    let runs = 0;
    const task = new PeriodicTask('flaky work', 60_000, async () => {
      runs += 1;
      if (runs === 1) throw new Error('database away');
    }, warn);
    task.tick();
    await task.stop();
    task.tick();
    await task.stop();
    expect(runs).toBe(2);
    expect(JSON.stringify(warnings)).toContain('flaky work failed');
  });
});
