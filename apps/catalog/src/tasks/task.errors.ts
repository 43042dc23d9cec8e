import { badRequest, notFound } from '@lms/platform';

export const taskNotFound = (id: number) => notFound('TASK_NOT_FOUND', `Task ${id} does not exist.`);

export const approverInvalid = (field: string, message: string) =>
  badRequest('TASK_APPROVER_INVALID', `The default approver is not valid: ${message}.`, [{ field, message }]);
