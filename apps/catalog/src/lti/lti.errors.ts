import { notFound } from '@lms/platform';

/** Unknown, another account's, or (for a learner) in a course they are not enrolled in: the same 404. */
export const ltiContentItemNotFound = (id: number) => notFound('LTI_CONTENT_ITEM_NOT_FOUND', `LTI content item ${id} does not exist.`);
