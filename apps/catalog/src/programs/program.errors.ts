import { badRequest, forbidden, notFound } from '@lms/platform';

export const programNotFound = (id: number) => notFound('PROGRAM_NOT_FOUND', `Program ${id} does not exist.`);

export const programCourseInvalid = (field: string, id: number, why: string) =>
  badRequest('PROGRAM_COURSE_INVALID', `Course template ${id} cannot be part of a program: ${why}.`, [{ field, message: `course template ${id} ${why}` }]);

export const notAProgramAuthor = (id: number) => forbidden('NOT_AN_AUTHOR', `Only the author of program ${id} or an administrator may change it.`);

export const programNotPublished = (id: number) =>
  badRequest('PROGRAM_NOT_PUBLISHED', `Program ${id} is not published; publish it (is_published: true) before enrolling learners.`);
