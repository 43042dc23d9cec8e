import type { LockableType } from '@lms/contracts';
import { DomainError, forbidden, notFound, unauthorized, unprocessable } from '@lms/platform';
import type { LockRow } from './lock.repository.js';

const noun = (type: LockableType) => (type === 'CourseTemplate' ? 'Course template' : 'Task');

/** The locking service's errors, in one place: every one is a 401, 403, 404, 409, 422 or 503 the spec lists. */
export const lockableNotFound = (type: LockableType, id: number) => notFound('LOCKABLE_NOT_FOUND', `${noun(type)} ${id} does not exist.`);

export const notAnEditor = (type: LockableType, id: number) =>
  forbidden('NOT_AN_AUTHOR', `Only an author of ${noun(type).toLowerCase()} ${id} or an administrator may lock it.`);

export const notLocked = (type: LockableType, id: number) => notFound('LOCK_NOT_FOUND', `${noun(type)} ${id} is not locked.`);

/** Someone else holds the live lock: the problem names the holder and how long the lease has left. */
export const lockedByOther = (row: LockRow) =>
  new DomainError(409, 'LOCKED', 'Conflict', `${noun(row.lockableType)} ${row.lockableId} is locked by user ${row.holderId} for another ${row.expiresIn} seconds.`, [
    { field: 'holder_id', message: String(row.holderId) },
    { field: 'expires_in', message: String(row.expiresIn) },
  ]);

/** The presented X-Lock-Id is not the item's live lock (released, expired, taken over, or never one). */
export const lockNotLive = (type: LockableType, id: number, lockId: string) =>
  new DomainError(409, 'LOCK_NOT_LIVE', 'Conflict', `Lock ${lockId} is not the live lock on ${noun(type).toLowerCase()} ${id}; take the lock again.`, [
    { field: 'X-Lock-Id', message: 'not the live lock' },
  ]);

export const lockIdMissing = () => unprocessable('LOCK_ID_REQUIRED', 'The X-Lock-Id header (the lock id, a UUID) is required.', [{ field: 'X-Lock-Id', message: 'is required' }]);

export const lockIdInvalid = () => unprocessable('LOCK_ID_INVALID', 'The X-Lock-Id header must be a lock id (a UUID).', [{ field: 'X-Lock-Id', message: 'must be a UUID' }]);

/** The caller's user was deleted while the request ran (the gateway had let their token in): no lock is taken. */
export const holderDeleted = () => unauthorized('UNAUTHENTICATED', 'Your user was deleted while the request ran; no lock was taken.');
