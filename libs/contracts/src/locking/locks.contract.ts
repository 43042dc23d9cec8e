import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { LOCKABLE_TYPES, type LockableType } from '../catalog/lockables.contract.js';
import { MAX_ID } from '../common/query.js';
import type { JsonSchema, RouteHeader } from '../routes/route.js';

/** Spec "Locks (author)": one subject per method, for course templates and tasks alike (the route tells the type). */
export const LOCK_SUBJECTS = {
  courseTemplate: { show: 'locking.course_template_lock.show', acquire: 'locking.course_template_lock.acquire', renew: 'locking.course_template_lock.renew', release: 'locking.course_template_lock.release' },
  task: { show: 'locking.task_lock.show', acquire: 'locking.task_lock.acquire', renew: 'locking.task_lock.renew', release: 'locking.task_lock.release' },
} as const;

/**
 * Internal request/reply (no HTTP route): catalog asks, inside every authoring write, whether the caller
 * may write the item now (no live lock, or the caller holds it) and whether the `X-Lock-Id` it presented
 * is the live lock. Body: CheckLockRequest; reply: CheckLockReply, or a 409/422 problem.
 */
export const LOCKS_CHECK_SUBJECT = 'locking.locks.check';

/** The header naming a lock: required to renew or release one, optional on authoring writes (a fence). */
export const LOCK_ID_HEADER = 'x-lock-id';

export const LOCK_ID_HEADER_SPEC: RouteHeader = {
  name: 'X-Lock-Id',
  description: 'Id (UUID) of the live lock the caller holds on the item; 422 when missing or not a UUID, 409 when it is not the live lock.',
  schema: { type: 'string', format: 'uuid' },
};

/** On authoring writes: optional; a write presenting a lock id that is no longer the live lock is a 409 (docs/locking.md). */
export const LOCK_FENCE_HEADER_SPEC: RouteHeader = {
  name: 'X-Lock-Id',
  description: 'Optional: the lock the caller holds on the item. A write that presents a lock that is no longer the live one answers 409; while someone else holds a lock, every write does.',
  schema: { type: 'string', format: 'uuid' },
};


export class CheckLockRequest {
  @IsIn(LOCKABLE_TYPES)
  lockable_type: LockableType;

  @IsInt() @Min(1) @Max(MAX_ID)
  lockable_id: number;

  /** The `X-Lock-Id` the write presented, as sent (the locking service judges its form: 422). */
  @IsOptional() @IsString() @MaxLength(1024)
  lock_id?: string;
}

export interface CheckLockReply {
  /** The live lock the write goes ahead under, or null when none is held. */
  lock: { id: string; holder_id: number; fencing_token: number } | null;
}

/** `GET …/lock`. */
export interface LockStatusView {
  lockable_id: string;
  lockable_type: LockableType;
  holder_id: string;
  expires_in: number;
}

/** `POST …/lock`. */
export interface LockGrantView {
  id: string;
  lockable_id: string;
  lockable_type: LockableType;
  holder_id: string;
  updated_at: string;
}

export const LOCK_STATUS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['lockable_id', 'lockable_type', 'holder_id', 'expires_in'],
  properties: {
    lockable_id: { type: 'string' },
    lockable_type: { type: 'string', enum: [...LOCKABLE_TYPES] },
    holder_id: { type: 'string' },
    expires_in: { type: 'integer', minimum: 0, description: 'Seconds until the lock expires, on the database clock' },
  },
};

export const LOCK_GRANT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'lockable_id', 'lockable_type', 'holder_id', 'updated_at'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The lock id: send it as X-Lock-Id to renew or release the lock' },
    lockable_id: { type: 'string' },
    lockable_type: { type: 'string', enum: [...LOCKABLE_TYPES] },
    holder_id: { type: 'string' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

/** Events recorded through the locking outbox (data: LockEventData); subject `<lockable_type>:<lockable_id>`. */
export const LOCK_ACQUIRED_EVENT = 'locking.lock.acquired';
export const LOCK_RENEWED_EVENT = 'locking.lock.renewed';
export const LOCK_RELEASED_EVENT = 'locking.lock.released';
/** Emitted once per lease, when the service first observes that it ran out. */
export const LOCK_EXPIRED_EVENT = 'locking.lock.expired';

export interface LockEventData {
  id: string;
  lockable_type: LockableType;
  lockable_id: number;
  holder_id: number;
  fencing_token: number;
  /** When the lease ends (acquired, renewed) or ended (released, expired), ISO 8601 on the database clock. */
  expires_at: string;
  /** On `released`: why (the holder let go, the holder was deleted, the item was deleted). */
  reason?: 'released' | 'holder_deleted' | 'item_deleted' | 'author_removed';
}
