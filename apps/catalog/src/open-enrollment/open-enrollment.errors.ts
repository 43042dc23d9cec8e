import { badRequest, notFound, unauthorized } from '@lms/platform';

export const openItemNotFound = (kind: 'task' | 'program', key: string) => notFound(kind === 'task' ? 'TASK_NOT_FOUND' : 'PROGRAM_NOT_FOUND', `No ${kind} ${key} exists.`);
export const notOpen = (kind: 'task' | 'program', key: string) =>
  badRequest('NOT_OPEN_FOR_ENROLLMENT', `The ${kind} ${key} is not open for enrollment (it must be published, not archived, with open_enrollment on, and a program must hold a published course).`);
export const alreadyEnrolled = (kind: 'task' | 'program', key: string) => badRequest('ALREADY_ENROLLED', `You are enrolled in the ${kind} ${key} already.`);
/** The caller was deleted while their request ran (their tokens are revoked with them): nothing was enrolled. */
export const callerDeleted = () => unauthorized('INVALID_TOKEN', 'Your user was deleted while the request ran; nothing was enrolled.');
