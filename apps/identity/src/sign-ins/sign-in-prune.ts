import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Database, inBatches, intSetting, LOGGER, type Logger, PeriodicTask, queryResult } from '@lms/platform';

/** Rows one statement deletes at most: a prune never holds many locks, nor one long transaction. */
const BATCH = 5_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** How long a sign-in is kept for the SignInReport's counts; read once at start. */
export function signInRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  return intSetting(env, 'SIGN_IN_RETENTION_DAYS', 730, 30, 36_500);
}

export const SIGN_IN_RETENTION_DAYS = Symbol('SIGN_IN_RETENTION_DAYS');

/**
 * Deletes sign-ins older than the retention (docs/jobs.md "Admin reports"), except each user's latest:
 * the report's `last_sign_in_at` and `last_seen_at` are "ever", so they stay true however long ago a user
 * last came. Every identity replica prunes on its own timer, at start and hourly; batches skip the rows
 * another replica holds.
 */
@Injectable()
export class SignInPrune implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: Database,
    @Inject(LOGGER) logger: Logger,
    @Inject(SIGN_IN_RETENTION_DAYS) private readonly retentionDays: number,
  ) {
    this.task = new PeriodicTask('sign-in prune', HOUR_MS, async () => {
      const removed = await this.prune(new Date());
      if (removed > 0) logger.info({ removed }, 'old sign-ins pruned');
    }, logger);
  }

  onApplicationBootstrap(): void {
    this.task.start({ now: true });
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** Deletes the sign-ins past the retention at `now` (a parameter, so a test drives the clock); answers how many. */
  async prune(now: Date): Promise<number> {
    const table = `"${this.db.schema}".sign_ins`;
    const before = new Date(now.getTime() - this.retentionDays * DAY_MS);
    return inBatches(BATCH, async () =>
      queryResult(
        await this.db.manager.query(
          `DELETE FROM ${table} WHERE id = ANY(ARRAY(
             SELECT s.id FROM ${table} s
              WHERE s.signed_in_at < $1
                AND EXISTS (SELECT 1 FROM ${table} n WHERE n.account_id = s.account_id AND n.user_id = s.user_id AND n.signed_in_at > s.signed_in_at)
              ORDER BY s.id LIMIT $2 FOR UPDATE SKIP LOCKED))`,
          [before, BATCH],
        ),
      ).count,
    );
  }
}
