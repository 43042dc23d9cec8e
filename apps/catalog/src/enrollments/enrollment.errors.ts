import { badRequest, forbidden, notFound } from '@lms/platform';

export const enrollmentNotFound = (id: number) => notFound('ENROLLMENT_NOT_FOUND', `Enrollment ${id} does not exist.`);

export const learnerInvalid = (index: number, field: 'user_id' | 'group_id', id: number, reason: string) =>
  badRequest('ENROLLMENT_LEARNER_INVALID', `${field === 'user_id' ? 'User' : 'Group'} ${id} cannot be enrolled: ${reason}.`, [
    { field: `enrollments[${index}].${field}`, message: reason },
  ]);

export const courseNotPublished = (id: number) =>
  badRequest('COURSE_TEMPLATE_NOT_PUBLISHED', `Course template ${id} is not published; publish it before enrolling learners.`);

export const enrollmentTransitionInvalid = (id: number, from: string, detail: string, field = 'enrollments[0].state') =>
  badRequest('ENROLLMENT_TRANSITION_INVALID', `Enrollment ${id} is ${from}: ${detail}.`, [{ field, message: detail }]);

export const completedInFuture = () =>
  badRequest('ENROLLMENT_COMPLETED_AT_INVALID', 'completed_at cannot be in the future.', [{ field: 'enrollments[0].completed_at', message: 'must not be in the future' }]);

export const notAnEnroller = () => forbidden('NOT_AN_AUTHOR', 'Only authors and administrators of the account manage enrollments.');
