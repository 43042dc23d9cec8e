import { badRequest, conflict, DomainError, notFound, unauthorized } from '@lms/platform';

/** What a learner may enroll themselves in. */
export type OpenItemKind = 'course' | 'task' | 'program';

const NOT_FOUND_CODES: Record<OpenItemKind, string> = { course: 'COURSE_TEMPLATE_NOT_FOUND', task: 'TASK_NOT_FOUND', program: 'PROGRAM_NOT_FOUND' };

export const openItemNotFound = (kind: OpenItemKind, key: string) => notFound(NOT_FOUND_CODES[kind], `No ${kind} ${key} exists.`);
export const notOpen = (kind: OpenItemKind, key: string) =>
  badRequest('NOT_OPEN_FOR_ENROLLMENT', `The ${kind} ${key} is not open for enrollment (it must be published, not archived, with open_enrollment on, and a program must hold a published course).`);
export const alreadyEnrolled = (kind: OpenItemKind, key: string) => badRequest('ALREADY_ENROLLED', `You are enrolled in the ${kind} ${key} already.`);
/**
 * The caller was deleted while their request ran: nothing was enrolled, and their tokens are revoked with
 * them, so this says what the gateway's own 401 will say to their next request.
 */
export const callerDeleted = () => unauthorized('UNAUTHENTICATED', 'Your user was deleted while the request ran; nothing was enrolled.');
/** Identity refused the caller as a learner: the only way their own entry is invalid is that they are gone. */
export const isCallerRefused = (err: unknown) => err instanceof DomainError && err.code === 'ENROLLMENT_LEARNER_INVALID';
/** The enrollment that stopped this one was removed before it could be named: the learner may try again. */
export const enrollmentRaced = (kind: OpenItemKind, key: string) =>
  conflict('CONCURRENT_CHANGE', `Your enrollment in the ${kind} ${key} changed while this request ran; read it again before retrying.`);
