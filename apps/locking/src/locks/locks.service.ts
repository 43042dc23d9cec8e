import { Inject, Injectable } from '@nestjs/common';
import {
  type CheckLockReply,
  LOCK_ACQUIRED_EVENT,
  LOCK_EXPIRED_EVENT,
  LOCK_RELEASED_EVENT,
  LOCK_RENEWED_EVENT,
  type LockEventData,
  type LockGrantView,
  type LockStatusView,
  type RequestContext,
  UUID,
} from '@lms/contracts';
import { Database, DepartedUsers, Outbox, RUNTIME, type Runtime, type TenantScope } from '@lms/platform';
import { CatalogLockables } from './catalog-lockables.js';
import { holderDeleted, lockableNotFound, lockedByOther, lockIdInvalid, lockIdMissing, lockNotLive, notAnEditor, notLocked } from './lock.errors.js';
import { type LockKey, LockRepository, type LockRow } from './lock.repository.js';

export const statusView = (row: LockRow): LockStatusView => ({
  lockable_id: String(row.lockableId),
  lockable_type: row.lockableType,
  holder_id: String(row.holderId),
  expires_in: row.expiresIn,
});

export const grantView = (row: LockRow): LockGrantView => ({
  id: row.id,
  lockable_id: String(row.lockableId),
  lockable_type: row.lockableType,
  holder_id: String(row.holderId),
  updated_at: row.updatedAt.toISOString(),
});

const eventData = (row: LockRow, reason?: LockEventData['reason']): LockEventData => ({
  id: row.id,
  lockable_type: row.lockableType,
  lockable_id: row.lockableId,
  holder_id: row.holderId,
  fencing_token: row.fencingToken,
  expires_at: row.expiresAt.toISOString(),
  ...(reason ? { reason } : {}),
});

/** The X-Lock-Id a request presented, checked for form: 422 when missing (if required) or not a UUID. */
export function lockIdOf(value: string | undefined, required: boolean): string | undefined {
  if (value === undefined || value === '') {
    if (required) throw lockIdMissing();
    return undefined;
  }
  if (!UUID.test(value)) throw lockIdInvalid();
  return value.toLowerCase();
}

/**
 * Edit locks as leases (docs/locking.md): a lock is live until `expires_at` on the database clock, and a
 * lapsed one is free for the next taker without any sweeper. Each new holder gets a new lock id and the
 * next fencing token; writes in catalog present the id (`check`), so a holder whose lease ran out
 * cannot overwrite the next holder's work.
 */
@Injectable()
export class LocksService {
  private readonly ttlSeconds: number;

  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly locks: LockRepository,
    private readonly catalog: CatalogLockables,
    private readonly departed: DepartedUsers,
    @Inject(RUNTIME) runtime: Runtime,
  ) {
    this.ttlSeconds = runtime.config.lockTtlSeconds;
  }

  /** 404 for an item that is not in the caller's account, 403 for one the caller may not edit: catalog's answer. */
  private async assertEditable(ctx: RequestContext, item: LockKey): Promise<void> {
    const { exists, canEdit } = await this.catalog.describe(ctx, item);
    if (!exists) throw lockableNotFound(item.type, item.id);
    if (!canEdit) throw notAnEditor(item.type, item.id);
  }

  async show(ctx: RequestContext, item: LockKey): Promise<LockStatusView> {
    await this.assertEditable(ctx, item);
    const row = await this.db.transaction(async () => this.observe(ctx, await this.locks.find(ctx, item)));
    if (!row?.live) throw notLocked(item.type, item.id);
    return statusView(row);
  }

  /** The lock for the caller: a new lease on a free item, the caller's own live lease again, or a 409 naming the holder. */
  async acquire(ctx: RequestContext, item: LockKey): Promise<LockGrantView> {
    return this.db.transaction(async () => {
      // Catalog is asked under the item's meeting lock: an author removed after it answered is released by the
      // removal's consumer, which waits for this take to commit; removed before, catalog says so (403).
      await this.locks.meetTakes(ctx, item);
      await this.assertEditable(ctx, item);
      // A caller deleted since the gateway let them in takes no lock: its deletion, heard before this commits,
      // waits for it and then releases it (releaseHeldBy); heard earlier, it is here (DepartedUsers).
      if ((await this.departed.among(ctx, [ctx.userId])).size > 0) throw holderDeleted();
      const first = await this.locks.insertFirst(ctx, item, ctx.userId, this.ttlSeconds);
      if (first) return grantView(await this.record(ctx, LOCK_ACQUIRED_EVENT, first));
      const current = await this.observe(ctx, await this.locks.find(ctx, item, true));
      if (current?.live) {
        if (current.holderId === ctx.userId) return grantView(current);
        throw lockedByOther(current);
      }
      const taken = await this.locks.takeOver(ctx, item, ctx.userId, this.ttlSeconds);
      if (!taken) throw new Error(`lock row of ${item.type} ${item.id} vanished under its row lock`);
      return grantView(await this.record(ctx, LOCK_ACQUIRED_EVENT, taken));
    });
  }

  async renew(ctx: RequestContext, item: LockKey, header: string | undefined): Promise<void> {
    // Another account's item is a 404 whatever the request holds; then the header's form.
    await this.assertEditable(ctx, item);
    const lockId = lockIdOf(header, true) as string;
    await this.db.transaction(async () => {
      await this.assertHolder(ctx, item, lockId);
      const renewed = await this.locks.renew(ctx, item, lockId, this.ttlSeconds);
      if (!renewed) throw lockNotLive(item.type, item.id, lockId);
      await this.record(ctx, LOCK_RENEWED_EVENT, renewed);
    });
  }

  async release(ctx: RequestContext, item: LockKey, header: string | undefined): Promise<void> {
    // Another account's item is a 404 whatever the request holds; then the header's form.
    await this.assertEditable(ctx, item);
    const lockId = lockIdOf(header, true) as string;
    await this.db.transaction(async () => {
      await this.assertHolder(ctx, item, lockId);
      const released = await this.locks.release(ctx, item, lockId);
      if (!released) throw lockNotLive(item.type, item.id, lockId);
      await this.record(ctx, LOCK_RELEASED_EVENT, released, 'released');
    });
  }

  /**
   * Catalog's question inside an authoring write: may the caller write the item now? Yes with no live
   * lock or as its holder; a presented lock id must be the live lock. Catalog has already checked that
   * the caller may edit the item, so this asks nothing back.
   */
  async check(ctx: RequestContext, item: LockKey, header: string | undefined): Promise<CheckLockReply> {
    const lockId = lockIdOf(header, false);
    return this.db.transaction(async () => {
      const row = await this.observe(ctx, await this.locks.find(ctx, item));
      if (row?.live && row.holderId !== ctx.userId) throw lockedByOther(row);
      if (lockId !== undefined && !(row?.live && row.id === lockId)) throw lockNotLive(item.type, item.id, lockId);
      return { lock: row?.live ? { id: row.id, holder_id: row.holderId, fencing_token: row.fencingToken } : null };
    });
  }

  /**
   * Locks of a deleted user end with them. Recorded first, in the consumer's transaction: a lock of theirs
   * still being taken commits before the release below (which ends it), or its take sees the record.
   */
  async releaseHeldBy(scope: TenantScope, userId: number): Promise<void> {
    await this.departed.record(scope, userId);
    for (const row of await this.locks.releaseHeldBy(scope, userId)) await this.record(scope, LOCK_RELEASED_EVENT, row, 'holder_deleted');
  }

  /**
   * An author removed from a course keeps no lock on it. Under the course's meeting lock: a take of theirs that
   * catalog answered before the removal commits first and is released here; one that asks after is a 403.
   */
  async releaseRemovedAuthor(scope: TenantScope, item: LockKey, userId: number): Promise<void> {
    await this.locks.meetTakes(scope, item);
    for (const row of await this.locks.releaseHeldOn(scope, item, userId)) await this.record(scope, LOCK_RELEASED_EVENT, row, 'author_removed');
  }

  /**
   * A deleted course or task keeps no lock. Under the item's meeting lock, as an author's removal: a take that
   * catalog answered before the deletion commits first and is released here; one that asks after is a 404.
   */
  async releaseItem(scope: TenantScope, item: LockKey): Promise<void> {
    await this.locks.meetTakes(scope, item);
    for (const row of await this.locks.releaseItem(scope, item)) await this.record(scope, LOCK_RELEASED_EVENT, row, 'item_deleted');
  }

  /** The presented lock must be the live lease on the item and the caller its holder; else a 409 that says which. */
  private async assertHolder(ctx: RequestContext, item: LockKey, lockId: string): Promise<void> {
    const row = await this.observe(ctx, await this.locks.find(ctx, item, true));
    if (!row?.live || row.id !== lockId) {
      if (row?.live && row.holderId !== ctx.userId) throw lockedByOther(row);
      throw lockNotLive(item.type, item.id, lockId);
    }
    if (row.holderId !== ctx.userId) throw lockedByOther(row);
  }

  /** The first request that finds a lease run out records `locking.lock.expired` for it (once: `markExpired` answers one caller). */
  private async observe(scope: TenantScope, row: LockRow | undefined): Promise<LockRow | undefined> {
    if (!row || row.live || row.releasedAt !== null || row.expiryReported) return row;
    const expired = await this.locks.markExpired(scope, { type: row.lockableType, id: row.lockableId }, row.id);
    if (expired) await this.record(scope, LOCK_EXPIRED_EVENT, expired);
    return row;
  }

  private async record(scope: TenantScope, type: string, row: LockRow, reason?: LockEventData['reason']): Promise<LockRow> {
    await this.outbox.add(scope, type, eventData(row, reason), `${row.lockableType}:${row.lockableId}`);
    return row;
  }
}
