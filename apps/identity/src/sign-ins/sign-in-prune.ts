import { Inject, Injectable } from '@nestjs/common';
import { Database, HourlyPrune, inBatches, intSetting, LOGGER, type Logger, queryResult } from '@lms/platform';

/** Rows one statement deletes at most: a prune never holds many locks, nor one long transaction. */
const BATCH = 5_000;

/** How long a sign-in is kept for the SignInReport's counts; read once at start. */
export function signInRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  return intSetting(env, 'SIGN_IN_RETENTION_DAYS', 730, 30, 36_500);
}

export const SIGN_IN_RETENTION_DAYS = Symbol('SIGN_IN_RETENTION_DAYS');

/**
 * Deletes sign-ins last seen before the retention (docs/jobs.md "Admin reports"), except each user's latest
 * started and latest seen: the report's `last_sign_in_at` and `last_seen_at` are "ever", so they stay true
 * however long ago a user last came. A session still in use is never old, however long ago it started: the
 * recorder moves it on, and would start a new one (a sign-in that never happened) had it gone.
 */
@Injectable()
export class SignInPrune extends HourlyPrune {
  constructor(
    private readonly db: Database,
    @Inject(LOGGER) logger: Logger,
    @Inject(SIGN_IN_RETENTION_DAYS) retentionDays: number,
  ) {
    super('sign-in prune', logger, retentionDays);
  }

  async prune(now: Date): Promise<number> {
    const table = `"${this.db.schema}".sign_ins`;
    const before = this.cutOff(now);
    return inBatches(BATCH, async () =>
      queryResult(
        await this.db.manager.query(
          `DELETE FROM ${table} WHERE id = ANY(ARRAY(
             SELECT s.id FROM ${table} s
              WHERE s.last_seen_at < $1
                AND EXISTS (SELECT 1 FROM ${table} n WHERE n.account_id = s.account_id AND n.user_id = s.user_id AND n.signed_in_at > s.signed_in_at)
                AND EXISTS (SELECT 1 FROM ${table} n WHERE n.account_id = s.account_id AND n.user_id = s.user_id AND n.last_seen_at > s.last_seen_at)
              ORDER BY s.id LIMIT $2 FOR UPDATE SKIP LOCKED))`,
          [before, BATCH],
        ),
      ).count,
    );
  }
}
