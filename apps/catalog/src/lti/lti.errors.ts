import { notFound } from '@lms/platform';

/** Unknown, another account's, or (for a learner) in a course they are not enrolled in: the same 404. */
export const ltiContentItemNotFound = (id: number) => notFound('LTI_CONTENT_ITEM_NOT_FOUND', `LTI content item ${id} does not exist.`);

/** The launch's context: unknown, another account's, or a program without the item's course. */
export const ltiProgramNotFound = (programId: number, itemId: number) =>
  notFound('PROGRAM_NOT_FOUND', `Program ${programId} does not exist or does not hold the course of LTI content item ${itemId}.`);
