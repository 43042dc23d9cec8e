import { Inject, Injectable } from '@nestjs/common';
import { Database, LOGGER, type Logger } from '@lms/platform';

/** A token's use is written at most this often by one identity replica. */
export const SIGN_IN_RECORD_EVERY_MS = 5 * 60_000;
/** A use after this long a silence starts a new sign-in. */
export const SIGN_IN_SESSION_GAP = '30 minutes';
/** Tokens remembered before the memory is cleared (each then records once more). */
const MAX_REMEMBERED = 50_000;

export interface TokenUse {
  accountId: number;
  userId: number;
  tokenId: number;
}

/**
 * Records API token use for the SignInReport (docs/jobs.md "Admin reports"), off the request path:
 * identity is asked for a token only when the gateway's principal cache misses (once per token per
 * AUTH_CACHE_TTL_MS per gateway replica), and of those asks at most one per token per
 * SIGN_IN_RECORD_EVERY_MS is written, without the answer waiting for it. The write either moves the
 * token's current sign-in on (`last_seen_at`) or, after SIGN_IN_SESSION_GAP of silence, starts a new one;
 * a lock per token keeps two replicas from starting two at once. A failed write is logged and forgotten:
 * a report may miss a use, a request never fails for it.
 */
@Injectable()
export class SignInRecorder {
  private readonly written = new Map<number, number>();

  constructor(
    private readonly db: Database,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  record(use: TokenUse, now = Date.now()): void {
    const last = this.written.get(use.tokenId);
    if (last !== undefined && now - last < SIGN_IN_RECORD_EVERY_MS) return;
    if (this.written.size >= MAX_REMEMBERED) this.written.clear();
    this.written.set(use.tokenId, now);
    this.write(use).catch((err: unknown) => {
      this.written.delete(use.tokenId);
      this.logger.warn({ err, tokenId: use.tokenId }, 'could not record a sign-in');
    });
  }

  private async write(use: TokenUse): Promise<void> {
    const table = `"${this.db.schema}".sign_ins`;
    await this.db.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`sign-in:${use.tokenId}`]);
      await manager.query(
        `WITH current AS (
           UPDATE ${table} SET last_seen_at = now()
            WHERE id = (SELECT id FROM ${table} WHERE account_id = $1 AND token_id = $3 AND last_seen_at > now() - interval '${SIGN_IN_SESSION_GAP}' ORDER BY last_seen_at DESC LIMIT 1)
           RETURNING id)
         INSERT INTO ${table} (account_id, user_id, token_id) SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM current)`,
        [use.accountId, use.userId, use.tokenId],
      );
    });
  }
}
