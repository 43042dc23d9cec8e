import { badRequest, notFound } from '@lms/platform';

export const retainQuizNotFound = (id: number) => notFound('RETAIN_QUIZ_NOT_FOUND', `You have no retain quiz ${id}.`);
export const retainQuizComplete = (id: number) => badRequest('RETAIN_QUIZ_COMPLETE', `Retain quiz ${id} is complete: it cannot change.`);
export const retainQuizNotDue = (id: number, dueAt: Date) =>
  badRequest('RETAIN_QUIZ_NOT_DUE', `Retain quiz ${id} is scheduled for ${dueAt.toISOString()}; it can be taken from then on.`);
