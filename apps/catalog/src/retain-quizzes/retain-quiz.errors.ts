import { badRequest, notFound } from '@lms/platform';

export const retainQuizNotFound = (id: number) => notFound('RETAIN_QUIZ_NOT_FOUND', `You have no retain quiz ${id}.`);
export const retainQuizComplete = (id: number) => badRequest('RETAIN_QUIZ_COMPLETE', `Retain quiz ${id} is complete: it cannot change.`);
export const retainQuizNotDue = (id: number, dueAt: Date) =>
  badRequest('RETAIN_QUIZ_NOT_DUE', `Retain quiz ${id} is scheduled for ${dueAt.toISOString()}; it can be taken from then on.`);

/** A learner's start lies between the quiz's due moment and now; further out than a clock's skew it is impossible. */
export const retainQuizStartInFuture = (id: number) =>
  badRequest('RETAIN_QUIZ_START_INVALID', `Retain quiz ${id} cannot have started in the future.`, [{ field: 'quiz.started_at', message: 'is in the future' }]);
export const retainQuizStartBeforeDue = (id: number, dueAt: Date) =>
  badRequest('RETAIN_QUIZ_START_INVALID', `Retain quiz ${id} could be taken only from ${dueAt.toISOString()}; it cannot have started before.`, [
    { field: 'quiz.started_at', message: `is before the quiz was due (${dueAt.toISOString()})` },
  ]);
