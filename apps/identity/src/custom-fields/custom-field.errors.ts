import { badRequest, notFound } from '@lms/platform';

export const customFieldNotFound = (id: number) => notFound('CUSTOM_FIELD_NOT_FOUND', `Custom field ${id} does not exist.`);

export const customFieldNameTaken = (name: string, field = 'name') =>
  badRequest('CUSTOM_FIELD_NAME_TAKEN', `A custom field named "${name}" already exists.`, [{ field, message: 'name is already taken' }]);
