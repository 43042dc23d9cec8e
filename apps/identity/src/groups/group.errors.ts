import { badRequest, conflict, notFound } from '@lms/platform';

export const groupNotFound = (id: number) => notFound('GROUP_NOT_FOUND', `Group ${id} does not exist.`);

export const groupNameTaken = (name: string, field = 'name') =>
  badRequest('GROUP_NAME_TAKEN', `A group named "${name}" already exists under the same parent.`, [{ field, message: 'name is already taken among its siblings' }]);

export const groupParentNotFound = (id: number, field = 'parent_id') =>
  badRequest('GROUP_PARENT_NOT_FOUND', `Parent group ${id} does not exist.`, [{ field, message: 'no such group' }]);

export const groupCycle = (id: number, parentId: number) =>
  badRequest('GROUP_CYCLE', `Group ${parentId} is group ${id} or one of its descendants, so it cannot be its parent.`, [
    { field: 'group.parent_id', message: 'would make the group its own ancestor' },
  ]);

export const groupHasChildren = (id: number) =>
  conflict('GROUP_HAS_CHILDREN', `Group ${id} has child groups; delete or move them first.`);

export const groupUserNotFound = (ids: number[]) =>
  notFound('USER_NOT_FOUND', `No such user${ids.length > 1 ? 's' : ''} in this account: ${ids.join(', ')}.`);
