import { badRequest, notFound } from '@lms/platform';

export const sessionNotFound = (id: number) => notFound('SESSION_NOT_FOUND', `Live course session ${id} does not exist.`);

export const invalidSession = (code: string, detail: string, field?: string) => badRequest(code, detail, field ? [{ field, message: detail }] : undefined);
