import { badRequest, forbidden, notFound } from '@lms/platform';

/** Every error of the users feature, with its status, in one place. */
export const userNotFound = (ref: number | string) => notFound('USER_NOT_FOUND', `User ${String(ref)} does not exist in this account.`);

export const uidTaken = (uid: string, field = 'users[0].uid') =>
  badRequest('USER_ALREADY_EXISTS', `A user with uid "${uid}" already exists.`, [{ field, message: 'uid is already taken' }]);

export const hrisIdTaken = (hrisId: string, field = 'users[0].hris_id') =>
  badRequest('HRIS_ID_TAKEN', `A user with hris_id "${hrisId}" already exists.`, [{ field, message: 'hris_id is already taken' }]);

export const managerNotFound = (ref: number | string, field = 'users[0].manager_id') =>
  badRequest('MANAGER_NOT_FOUND', `Manager ${String(ref)} is not an active user of this account.`, [{ field, message: 'no such manager' }]);

export const ownManager = (field = 'user.manager_id') =>
  badRequest('MANAGER_IS_SELF', 'A user cannot be his or her own manager.', [{ field, message: 'a user cannot manage himself or herself' }]);

export const unknownCustomField = (id: string, field: string) =>
  badRequest('CUSTOM_FIELD_NOT_FOUND', `Custom field ${id} does not exist in this account.`, [{ field, message: `unknown custom field ${id}` }]);

export const repeatedCustomField = (id: string, field: string) =>
  badRequest('CUSTOM_FIELD_REPEATED', `Custom field ${id} is given twice.`, [{ field, message: `custom field ${id} is given twice` }]);

export const emptyUpdate = () => badRequest('EMPTY_UPDATE', 'The user object names no attribute to change.', [{ field: 'user', message: 'at least one attribute is required' }]);

export const cannotDeleteSelf = () => forbidden('CANNOT_DELETE_SELF', 'You cannot delete yourself.');

export const cannotDemoteSelf = () => forbidden('CANNOT_DEMOTE_SELF', 'You cannot remove your own admin role: another administrator must.');

export const cannotHideSelf = () => forbidden('CANNOT_HIDE_SELF', 'You cannot hide yourself.');

export const userNotDeleted = (ref: number | string) => badRequest('USER_NOT_DELETED', `User ${String(ref)} is active; only a deleted user can be hidden.`);

export const invalidPeriod = () =>
  badRequest('INVALID_PERIOD', 'start_date is after end_date.', [{ field: 'start_date', message: 'start_date must not be after end_date' }]);

export const masqueradeForbidden = (ref: number | string) =>
  forbidden('MASQUERADE_FORBIDDEN', `You may not act as user ${String(ref)}: only an administrator may, as another live user of the account.`);
