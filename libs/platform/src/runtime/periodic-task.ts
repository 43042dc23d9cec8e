import type { Logger } from '../observability/logger.js';

/**
 * Work a replica repeats on a timer (a sweep, a purge, a scheduler): every `intervalMs`, never two runs at once
 * (a tick while one runs is skipped), a failure logged and left to the next tick, and a timer that never keeps
 * the process alive. `stop` waits for the run in progress.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    /** For the log: what failed. */
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly run: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  /**
   * Ticks every interval, and at once when `now` (work missed while the process was down). Started already,
   * it does nothing: a second timer would be one `stop` never clears.
   */
  start({ now = false } = {}): void {
    if (this.timer) return;
    if (now) this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  tick(): void {
    if (this.running) return;
    this.running = this.run()
      .then(
        () => undefined,
        (err: unknown) => this.logger.warn({ err, task: this.name }, `${this.name} failed; tried again at the next tick`),
      )
      .finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A prune of rows past their retention, run by every replica at start and then hourly (a replica that lives
 * less than an hour still prunes); `prune` deletes what is older than `cutOff(now)` in batches that skip rows
 * another replica holds, and answers how many went, which is logged when any did.
 */
export abstract class HourlyPrune {
  private readonly task: PeriodicTask;

  protected constructor(
    name: string,
    logger: Logger,
    private readonly retentionDays: number,
  ) {
    this.task = new PeriodicTask(name, HOUR_MS, async () => {
      const removed = await this.prune(new Date());
      if (removed > 0) logger.info({ removed }, `${name}: rows past their retention removed`);
    }, logger);
  }

  /** Deletes what is past the retention at `now` (a parameter, so a test drives the clock); answers how many. */
  abstract prune(now: Date): Promise<number>;

  /** The retention's start at `now`: what is older goes. */
  protected cutOff(now: Date): Date {
    return new Date(now.getTime() - this.retentionDays * DAY_MS);
  }

  onApplicationBootstrap(): void {
    this.task.start({ now: true });
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }
}
