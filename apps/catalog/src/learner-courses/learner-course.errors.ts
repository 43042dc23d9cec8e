import { LIVE_TRAINING } from '@lms/contracts';
import { badRequest, notFound } from '@lms/platform';

/** Not the caller's, removed, or unknown: the same 404 (design §10). */
export const learnerCourseNotFound = (id: number) => notFound('LEARNER_COURSE_NOT_FOUND', `You have no course enrollment ${id}.`);

export const previewNotFound = (id: number) => notFound('COURSE_TEMPLATE_NOT_FOUND', `Course template ${id} does not exist or is not published.`);

export const requiredCourse = (id: number) => badRequest('COURSE_REQUIRED', `Enrollment ${id} is required: only optional courses may be left.`);

export const liveTrainingNotCompletable = (id: number) =>
  badRequest('LIVE_TRAINING_COMPLETED_BY_ATTENDANCE', `Enrollment ${id} is a live training: it completes when a session you attended is concluded.`);

export const liveTrainingNotLeavable = (id: number) =>
  badRequest('LIVE_TRAINING_ASSIGNED', `Enrollment ${id} is a live training its authors manage: ask them to remove you.`);

/** A native course or a live training (`type`, the learner course's `course_type`): nothing external to tell. */
export const notExternal = (id: number, type: string) =>
  badRequest('COURSE_NOT_EXTERNAL', `Enrollment ${id} is ${type === LIVE_TRAINING ? 'a live training' : `in a ${type} course`}, which has no external information.`);
