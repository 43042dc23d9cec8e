import { badRequest, conflict, forbidden, notFound } from '@lms/platform';

export const programNotFound = (id: number) => notFound('PROGRAM_NOT_FOUND', `Program ${id} does not exist.`);

export const programCourseInvalid = (field: string, id: number, why: string) =>
  badRequest('PROGRAM_COURSE_INVALID', `Course template ${id} cannot be part of a program: ${why}.`, [{ field, message: `course template ${id} ${why}` }]);

export const notAProgramAuthor = (id: number) => forbidden('NOT_AN_AUTHOR', `Only the author of program ${id} or an administrator may change it.`);

export const programNotPublished = (id: number) =>
  badRequest('PROGRAM_NOT_PUBLISHED', `Program ${id} is not published; publish it (is_published: true) before enrolling learners.`);

export const programTaskInvalid = (field: string, id: number, why: string) =>
  badRequest('PROGRAM_TASK_INVALID', `Task ${id} cannot be part of a program: ${why}.`, [{ field, message: `task ${id} ${why}` }]);

export const programItemsConflict = (prefix: string) =>
  badRequest('PROGRAM_ITEMS_CONFLICT', 'Give the order as items or as course_template_ids, not both.', [{ field: `${prefix}.items`, message: 'items and course_template_ids must not be given together' }]);

export const programOrderChanging = (id: number) =>
  conflict('CONCURRENT_CHANGE', `Program ${id}'s courses and checkpoints kept changing while its learners were being enrolled; read it again before retrying.`);
