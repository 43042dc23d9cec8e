import { notFound } from '@lms/platform';

export const apiTokenNotFound = (id: number) => notFound('API_TOKEN_NOT_FOUND', `API token ${id} does not exist or is already revoked.`);

export const tokenUserNotFound = (ref: number | string) => notFound('USER_NOT_FOUND', `User ${String(ref)} does not exist in this account.`);
