import { forbidden, notFound } from '@lms/platform';

/** The slide is unknown, not in the course, or the caller neither learns nor authors the course: one 404. */
export const slideNotFound = (courseId: number, slideId: number) =>
  notFound('SLIDE_NOT_FOUND', `Course ${courseId} has no slide ${slideId} you can see (only its enrolled learners and authors see its comments).`);
export const commentNotFound = (id: number) => notFound('COMMENT_NOT_FOUND', `The slide has no comment ${id}.`);
export const commentsDisabled = (slideId: number) => forbidden('COMMENTS_DISABLED', `Slide ${slideId} does not allow comments.`);
