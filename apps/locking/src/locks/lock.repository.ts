import { Injectable } from '@nestjs/common';
import type { LockableType } from '@lms/contracts';
import { Database, queryResult, type TenantScope } from '@lms/platform';

/** One lock row as the service reads it, with its state judged on the database clock. */
export interface LockRow {
  accountId: number;
  lockableType: LockableType;
  lockableId: number;
  id: string;
  holderId: number;
  fencingToken: number;
  updatedAt: Date;
  expiresAt: Date;
  releasedAt: Date | null;
  expiryReported: boolean;
  /** Not released and not yet expired, as of `clock_timestamp()` when read. */
  live: boolean;
  /** Whole seconds left (rounded up), 0 once expired. */
  expiresIn: number;
}

export interface LockKey {
  type: LockableType;
  id: number;
}

interface RawRow {
  account_id: number;
  lockable_type: LockableType;
  lockable_id: string;
  id: string;
  holder_id: string;
  fencing_token: string;
  updated_at: Date;
  expires_at: Date;
  released_at: Date | null;
  expiry_reported: boolean;
  live: boolean;
  expires_in: number;
}

const T = 'locking.locks';

/** Every read judges liveness on the database clock (not the pod's), in the same statement. */
const COLUMNS = `account_id, lockable_type, lockable_id, id, holder_id, fencing_token, updated_at, expires_at, released_at, expiry_reported,
  (released_at IS NULL AND expires_at > clock_timestamp()) AS live,
  GREATEST(0, CEIL(EXTRACT(EPOCH FROM expires_at - clock_timestamp())))::integer AS expires_in`;

const KEY = 'account_id = $1 AND lockable_type = $2 AND lockable_id = $3';
const LEASE_END = "clock_timestamp() + make_interval(secs => $4)";

function toRow(raw: RawRow): LockRow {
  return {
    accountId: raw.account_id,
    lockableType: raw.lockable_type,
    lockableId: Number(raw.lockable_id),
    id: raw.id,
    holderId: Number(raw.holder_id),
    fencingToken: Number(raw.fencing_token),
    updatedAt: raw.updated_at,
    expiresAt: raw.expires_at,
    releasedAt: raw.released_at,
    expiryReported: raw.expiry_reported,
    live: raw.live,
    expiresIn: raw.expires_in,
  };
}

/**
 * The lock table's queries, each named, each filtered by account. Writes join the transaction in
 * progress (`Database.manager`), so a change and its outbox event commit together.
 */
@Injectable()
export class LockRepository {
  constructor(private readonly db: Database) {}

  private async rows(sql: string, params: unknown[]): Promise<LockRow[]> {
    return queryResult<RawRow>(await this.db.manager.query(sql, params)).rows.map(toRow);
  }

  private async one(sql: string, params: unknown[]): Promise<LockRow | undefined> {
    return (await this.rows(sql, params))[0];
  }

  private key(scope: TenantScope, { type, id }: LockKey): unknown[] {
    return [scope.accountId, type, id];
  }

  /** The item's lock row, if it was ever locked; `forUpdate` holds its row lock to the end of the transaction. */
  find(scope: TenantScope, item: LockKey, forUpdate = false): Promise<LockRow | undefined> {
    return this.one(`SELECT ${COLUMNS} FROM ${T} WHERE ${KEY}${forUpdate ? ' FOR UPDATE' : ''}`, this.key(scope, item));
  }

  /**
   * The first lock ever on an item: inserted, or nothing when a row exists. Concurrent first takes wait on
   * the primary key for the winner to commit and then insert nothing, so exactly one of them holds it.
   */
  insertFirst(scope: TenantScope, item: LockKey, holderId: number, ttlSeconds: number): Promise<LockRow | undefined> {
    return this.one(
      `INSERT INTO ${T} (account_id, lockable_type, lockable_id, id, holder_id, fencing_token, acquired_at, updated_at, expires_at)
       VALUES ($1, $2, $3, gen_random_uuid(), $5, 1, clock_timestamp(), clock_timestamp(), ${LEASE_END})
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [...this.key(scope, item), ttlSeconds, holderId],
    );
  }

  /** A new lease on a free item (released or expired): a new id, the next fencing token. The caller holds the row lock. */
  takeOver(scope: TenantScope, item: LockKey, holderId: number, ttlSeconds: number): Promise<LockRow | undefined> {
    return this.one(
      `UPDATE ${T} SET id = gen_random_uuid(), holder_id = $5, fencing_token = fencing_token + 1, acquired_at = clock_timestamp(),
         updated_at = clock_timestamp(), expires_at = ${LEASE_END}, released_at = NULL, expiry_reported = false
       WHERE ${KEY} RETURNING ${COLUMNS}`,
      [...this.key(scope, item), ttlSeconds, holderId],
    );
  }

  /** The lifetime starts again, for the live lease `lockId` only. */
  renew(scope: TenantScope, item: LockKey, lockId: string, ttlSeconds: number): Promise<LockRow | undefined> {
    return this.one(
      `UPDATE ${T} SET updated_at = clock_timestamp(), expires_at = ${LEASE_END}
       WHERE ${KEY} AND id = $5 AND released_at IS NULL AND expires_at > clock_timestamp() RETURNING ${COLUMNS}`,
      [...this.key(scope, item), ttlSeconds, lockId],
    );
  }

  /** Ends the live lease `lockId`. */
  release(scope: TenantScope, item: LockKey, lockId: string): Promise<LockRow | undefined> {
    return this.one(
      `UPDATE ${T} SET released_at = clock_timestamp(), updated_at = clock_timestamp()
       WHERE ${KEY} AND id = $4 AND released_at IS NULL AND expires_at > clock_timestamp() RETURNING ${COLUMNS}`,
      [...this.key(scope, item), lockId],
    );
  }

  /** Ends whatever live lease the item has (the item was deleted). */
  releaseItem(scope: TenantScope, item: LockKey): Promise<LockRow[]> {
    return this.rows(
      `UPDATE ${T} SET released_at = clock_timestamp(), updated_at = clock_timestamp()
       WHERE ${KEY} AND released_at IS NULL AND expires_at > clock_timestamp() RETURNING ${COLUMNS}`,
      this.key(scope, item),
    );
  }

  /**
   * Where a take and the end of its taker's right to the item meet (an author removed from the course, the
   * item deleted): held to the end of the transaction, by a take from before it asks catalog until it commits,
   * and by the consumer that ends the lease. Every other lock of either comes after it.
   */
  async meetTakes(scope: TenantScope, item: LockKey): Promise<void> {
    await this.db.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`locking.item:${scope.accountId}:${item.type}:${item.id}`]);
  }

  /** Ends the live lease a user holds on one item (they were removed from its authors). */
  releaseHeldOn(scope: TenantScope, item: LockKey, holderId: number): Promise<LockRow[]> {
    return this.rows(
      `UPDATE ${T} SET released_at = clock_timestamp(), updated_at = clock_timestamp()
       WHERE ${KEY} AND holder_id = $4 AND released_at IS NULL AND expires_at > clock_timestamp() RETURNING ${COLUMNS}`,
      [...this.key(scope, item), holderId],
    );
  }

  /** Ends every live lease a user holds in the account (the user was deleted). */
  releaseHeldBy(scope: TenantScope, holderId: number): Promise<LockRow[]> {
    return this.rows(
      `UPDATE ${T} SET released_at = clock_timestamp(), updated_at = clock_timestamp()
       WHERE account_id = $1 AND holder_id = $2 AND released_at IS NULL AND expires_at > clock_timestamp() RETURNING ${COLUMNS}`,
      [scope.accountId, holderId],
    );
  }

  /**
   * Marks the lease `lockId` as seen expired, once: answers the row only for the first caller that
   * observes the expiry, so `locking.lock.expired` is recorded once per lease.
   */
  markExpired(scope: TenantScope, item: LockKey, lockId: string): Promise<LockRow | undefined> {
    return this.one(
      `UPDATE ${T} SET expiry_reported = true
       WHERE ${KEY} AND id = $4 AND released_at IS NULL AND expires_at <= clock_timestamp() AND NOT expiry_reported RETURNING ${COLUMNS}`,
      [...this.key(scope, item), lockId],
    );
  }
}
