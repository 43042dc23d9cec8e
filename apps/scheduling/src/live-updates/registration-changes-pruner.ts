import { Inject, Injectable } from '@nestjs/common';
import { Database, HourlyPrune, inBatches, intSetting, LOGGER, type Logger, queryResult } from '@lms/platform';

/** Rows one statement deletes at most: a prune never holds many locks, nor one long transaction. */
const BATCH = 5_000;

/** How long a registration change stays in the live-updates log; read once at start. */
export function registrationChangesRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  return intSetting(env, 'LIVE_UPDATES_RETENTION_DAYS', 7, 1, 3650);
}

export const REGISTRATION_CHANGES_RETENTION_DAYS = Symbol('REGISTRATION_CHANGES_RETENTION_DAYS');

/**
 * Prunes the registration change log (docs/scheduling.md "Live updates"). It deletes a prefix of the log's
 * order, the changes of transactions below a bound, and records each course's horizon before it deletes: a
 * reader whose cursor is below its course's horizon may have missed a change and is told to start again
 * (`changes` answers `reset`); one at or above it has missed nothing. What goes is the changes older than the
 * retention, give or take a transaction that was open across the cut-off.
 */
@Injectable()
export class RegistrationChangesPruner extends HourlyPrune {
  constructor(
    private readonly db: Database,
    @Inject(LOGGER) logger: Logger,
    @Inject(REGISTRATION_CHANGES_RETENTION_DAYS) retentionDays: number,
  ) {
    super('registration change log prune', logger, retentionDays);
  }

  async prune(now: Date): Promise<number> {
    // The oldest change younger than the retention bounds what goes: the changes before it in id order, of
    // transactions before its own (and before every unfinished one).
    const [bound] = (await this.db.manager.query(
      `WITH first_kept AS (SELECT id, xid FROM scheduling.registration_changes WHERE created_at >= $1 ORDER BY id LIMIT 1)
       SELECT LEAST((SELECT xid FROM first_kept), pg_snapshot_xmin(pg_current_snapshot()))::text AS xid,
              COALESCE((SELECT id FROM first_kept), (SELECT max(id) FROM scheduling.registration_changes))::text AS id`,
      [this.cutOff(now)],
    )) as { xid: string; id: string | null }[];
    if (bound.id === null) return 0;
    // Each course's horizon, just past the newest of its changes that go: a reader is told to start again
    // only if it may have missed one of its own course's, so a quiet course's reader is never reset.
    const horizons = await this.db.manager.query(
      `INSERT INTO scheduling.registration_changes_pruned AS p (account_id, live_course_id, through)
       SELECT account_id, live_course_id, (max(xid::text::numeric) + 1)::text::xid8 FROM scheduling.registration_changes
        WHERE id <= $2 AND xid < $1::xid8 GROUP BY account_id, live_course_id
       ON CONFLICT (account_id, live_course_id) DO UPDATE SET through = GREATEST(p.through, EXCLUDED.through)
       RETURNING 1`,
      [bound.xid, bound.id],
    );
    if (queryResult(horizons).rows.length === 0) return 0;
    return inBatches(BATCH, async () =>
      queryResult(
        await this.db.manager.query(
          `DELETE FROM scheduling.registration_changes WHERE id = ANY(ARRAY(
             SELECT id FROM scheduling.registration_changes WHERE id <= $2 AND xid < $1::xid8 ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED))`,
          [bound.xid, bound.id, BATCH],
        ),
      ).count,
    );
  }
}
