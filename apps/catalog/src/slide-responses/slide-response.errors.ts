import { badRequest, conflict, notFound } from '@lms/platform';

/** Unknown, unpublished, another course's or another account's slide, or a course the caller has no live enrollment in: one 404. */
export const quizSlideNotFound = (courseId: number, slideId: number) =>
  notFound('SLIDE_NOT_FOUND', `Course ${courseId} has no published slide ${slideId} in an enrollment of yours.`);

/** The course's slides are its enrolled learners': an unknown, unpublished or archived course, or one the caller is not enrolled in. */
export const courseNotYours = (courseId: number) =>
  notFound('COURSE_TEMPLATE_NOT_FOUND', `Course template ${courseId} is not a published course you are enrolled in.`);

export const slideHasNoQuestion = (slideId: number) => badRequest('SLIDE_HAS_NO_QUESTION', `Slide ${slideId} is not a quiz slide with a question to answer.`);

export const unknownChoices = (slideId: number, ids: string[]) =>
  badRequest('UNKNOWN_CHOICE', `Slide ${slideId} has no choice ${ids.join(', ')}.`, [{ field: 'response.choice_ids', message: `unknown choice id(s): ${ids.join(', ')}` }]);

export const oneChoiceOnly = (slideId: number) =>
  badRequest('ONE_CHOICE_ONLY', `Slide ${slideId} takes exactly one choice.`, [{ field: 'response.choice_ids', message: 'this question takes exactly one choice' }]);

export const attemptsExhausted = (slideId: number, max: number) =>
  conflict('QUIZ_ATTEMPTS_EXHAUSTED', `You have used all ${max} attempt(s) at slide ${slideId}.`);
