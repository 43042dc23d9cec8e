import { badRequest, notFound } from '@lms/platform';

export const cannotBeAuthor = (userId: number, index: number, reason: string) =>
  badRequest('COURSE_AUTHOR_INVALID', `User ${userId} cannot be added as an author: ${reason}.`, [{ field: `users[${index}].user_id`, message: reason }]);

export const lastAuthor = (courseId: number) =>
  badRequest('COURSE_LAST_AUTHOR', `The last author of course template ${courseId} cannot be removed; add another author first.`);

export const courseAuthorNotFound = (courseId: number, userId: number) =>
  notFound('COURSE_AUTHOR_NOT_FOUND', `User ${userId} is not an author of course template ${courseId}.`);
