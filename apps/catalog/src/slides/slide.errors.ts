import { badRequest, notFound } from '@lms/platform';
import { MAX_SLIDES_PER_COURSE } from '@lms/contracts';

export const slideNotFound = (courseId: number, id: number) => notFound('SLIDE_NOT_FOUND', `Course template ${courseId} has no slide ${id}.`);

export const tooManySlides = (courseId: number) =>
  badRequest('TOO_MANY_SLIDES', `Course template ${courseId} would have more than ${MAX_SLIDES_PER_COURSE} slides.`, [{ field: 'slides', message: `at most ${MAX_SLIDES_PER_COURSE} slides per course` }]);
