import { badRequest, notFound } from '@lms/platform';

export const liveCourseNotFound = (id: number) => notFound('LIVE_COURSE_NOT_FOUND', `Live course ${id} does not exist.`);

export const liveCourseEnrollmentNotFound = (courseId: number, id: number) =>
  notFound('LIVE_COURSE_ENROLLMENT_NOT_FOUND', `Live course ${courseId} has no enrollment ${id}.`);

export const cannotEnroll = (userId: number, index: number, reason: string) =>
  badRequest('LIVE_COURSE_LEARNER_INVALID', `User ${userId} cannot be enrolled: ${reason}.`, [{ field: `learners[${index}].user_id`, message: reason }]);
