import { IsIn, IsInt, Max, Min } from 'class-validator';
import { MAX_ID } from '../common/query.js';

/**
 * Internal request/reply (no HTTP route): the locking service asks catalog whether a lockable exists in the
 * caller's account and whether the caller may edit it, before it hands out a lock.
 */
export const LOCKABLES_DESCRIBE_SUBJECT = 'catalog.lockables.describe';

export const LOCKABLE_TYPES = ['CourseTemplate', 'Task'] as const;
export type LockableType = (typeof LOCKABLE_TYPES)[number];

export class DescribeLockableRequest {
  @IsIn(LOCKABLE_TYPES)
  lockable_type: LockableType;

  @IsInt() @Min(1) @Max(MAX_ID)
  lockable_id: number;
}

export interface DescribeLockableReply {
  /** The item exists in the caller's account (archived course templates count as existing). */
  exists: boolean;
  /** The caller may change it: an administrator, or an author of the course (the creator of the task). */
  canEdit: boolean;
}
