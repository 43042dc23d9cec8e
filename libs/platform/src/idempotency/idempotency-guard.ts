import { createHash } from 'node:crypto';
import type { RpcReply, RpcRequest } from '@lms/contracts';
import type { Logger } from '../observability/logger.js';
import type { EntityManager } from 'typeorm';
import { type Database, queryResult } from '../persistence/database.js';
import { unprocessable } from '../rpc/rpc-errors.js';
import { idempotencyTable } from './idempotency-table.js';
import { PeriodicTask } from '../runtime/periodic-task.js';

/** How long a key is remembered (the issue's 24 hours); a key older than this starts afresh. */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** Set on an answer that is a replay of the first one. */
export const IDEMPOTENT_REPLAY_HEADER = 'idempotent-replayed';

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are one request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON());
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a request does: the same key with another fingerprint is another request, refused with 422. */
export const requestFingerprint = (subject: string, request: RpcRequest) =>
  createHash('sha256').update(canonicalJson({ subject, params: request.params ?? {}, query: request.query ?? {}, body: request.body ?? null })).digest('hex');

interface KeyRow {
  fingerprint: string;
  reply: string | null;
  expired: boolean;
}

const EXPIRED = `created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;

/** Thrown from where the handler's transaction opens, when the key turned out answered by another request. */
class ReplayInstead extends Error {}

/** The stored first answer, marked a replay, for a live answered key; 422 when the key was used for another request. */
function replayOf(row: KeyRow | undefined, fingerprint: string): RpcReply | undefined {
  if (!row || row.expired || row.reply === null) return undefined;
  if (row.fingerprint !== fingerprint) throw unprocessable('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another request; use a new key for a new request.');
  const first = JSON.parse(row.reply) as RpcReply;
  return first.ok ? { ...first, headers: { ...first.headers, [IDEMPOTENT_REPLAY_HEADER]: 'true' } } : first;
}

/**
 * What a repeat gets in place of an answer that held a secret shown once (an API token): the key's table would
 * otherwise keep the secret for a day, readable by whoever reads the database, where only its hash is kept.
 */
export const secretWithheld = (status = 200): RpcReply => ({
  ok: false,
  error: {
    status: 409,
    code: 'IDEMPOTENT_ANSWER_WITHHELD',
    title: 'Conflict',
    detail: `The first request with this Idempotency-Key succeeded (${status}), but its answer held a secret that is shown only once and was not kept. Find what it made in the list (and revoke it if its secret is lost); a new request needs a new key.`,
  },
});

/**
 * `Idempotency-Key` for a service's writes: the key (carried in the request context) is claimed in the
 * service's own schema in the same transaction as the handler's effect, with the answer stored beside it.
 * So a 2xx and its record commit together (a crash cannot keep one without the other), a repeat replays
 * the stored answer without doing the work again, and concurrent repeats wait on the row and replay.
 * A handler that fails rolls its claim back: a retry then does the work.
 */
export class IdempotencyGuard {
  private purging?: PeriodicTask;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  async run(subject: string, payload: unknown, invoke: () => Promise<RpcReply>): Promise<RpcReply> {
    const request = payload as RpcRequest | undefined;
    const key = request?.ctx?.idempotencyKey;
    if (typeof key !== 'string' || !request) return invoke();
    const { accountId, userId, actorId } = request.ctx;
    const fingerprint = requestFingerprint(subject, request);
    const table = idempotencyTable(this.db.schema);
    // An administrator acting as a user (`as_user_id`) has keys of their own there: a key holds no space, so
    // the suffix cannot be sent by the user, whose own keys stay theirs.
    const id = [accountId, userId, actorId === undefined ? key : `${key} as ${actorId}`];
    // A key answered already replays before the handler does anything, calls to other services included.
    const stored = replayOf(await this.keyRow(table, id), fingerprint);
    if (stored) return stored;
    // The key is claimed where the handler's transaction opens (its first write or `transaction`), not before:
    // until then the handler holds no connection, so what it asks of other services first (locking asks
    // catalog whether the caller may edit) waits on no transaction here, and no pool waits on another's.
    let replay: RpcReply | undefined;
    try {
      return await this.db.deferredTransaction(
        {
          begin: async (manager) => {
            replay = await this.claim(manager, table, id, fingerprint);
            if (!replay) return;
            // The handler stops here, the first request's answer being the answer; the key's row is let go
            // now, not once the handler has unwound (its connection goes back then).
            await manager.queryRunner?.rollbackTransaction();
            throw new ReplayInstead();
          },
          end: async (manager, answer) => {
            const kept = answer.ok && answer.secret ? secretWithheld(answer.status) : answer;
            await manager.query(`UPDATE ${table} SET reply = $4 WHERE account_id = $1 AND user_id = $2 AND key = $3`, [...id, JSON.stringify(kept)]);
          },
        },
        invoke,
      );
    } catch (err) {
      // Also when the handler turned the stop into an error of its own.
      if (replay) return replay;
      // A request with this key may have committed while this one ran the part before its claim, which it may
      // have failed for that very reason (a uid taken by the first): the first answer is the answer.
      // A key used for another request is still that request's 422; only a failed read gives way to `err`.
      const committed = replayOf(await this.keyRow(table, id).catch(() => undefined), fingerprint);
      if (committed) return committed;
      throw err;
    }
  }

  /** The key's row, on the pool; or in a transaction, held (`FOR UPDATE`). */
  private async keyRow(table: string, id: unknown[], held?: EntityManager): Promise<KeyRow | undefined> {
    const sql = `SELECT fingerprint, reply, ${EXPIRED} AS expired FROM ${table} WHERE account_id = $1 AND user_id = $2 AND key = $3${held ? ' FOR UPDATE' : ''}`;
    const [row] = (await (held ?? this.db.manager).query(sql, id)) as KeyRow[];
    return row;
  }

  /** Claims the key, or answers the reply of the request that has it (its transaction has ended by then). */
  private async claim(manager: EntityManager, table: string, id: unknown[], fingerprint: string): Promise<RpcReply | undefined> {
    const claimed: unknown[] = await manager.query(`INSERT INTO ${table} (account_id, user_id, key, fingerprint) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING key`, [...id, fingerprint]);
    if (claimed.length > 0) return undefined;
    // Another request has the key: the insert waited for its transaction, so the row is final.
    const stored = replayOf(await this.keyRow(table, id, manager), fingerprint);
    if (stored) return stored;
    // Expired (or, should the delete of a purge race us, gone): the key starts afresh.
    await manager.query(
      `INSERT INTO ${table} (account_id, user_id, key, fingerprint) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, reply = NULL, created_at = now()`,
      [...id, fingerprint],
    );
    return undefined;
  }

  /** Deletes keys older than the TTL; answers how many went. */
  async purge(): Promise<number> {
    return queryResult(await this.db.manager.query(`DELETE FROM ${idempotencyTable(this.db.schema)} WHERE ${EXPIRED}`)).count;
  }

  /** Purges now and then every `intervalMs`; a failed purge is logged and retried next time. */
  startPurging(intervalMs = 3_600_000): void {
    this.purging = new PeriodicTask('idempotency key purge', intervalMs, async () => {
      const count = await this.purge();
      if (count > 0) this.logger.info({ count }, 'expired idempotency keys purged');
    }, this.logger);
    this.purging.start({ now: true });
  }

  stopPurging(): Promise<void> {
    return this.purging?.stop() ?? Promise.resolve();
  }
}
