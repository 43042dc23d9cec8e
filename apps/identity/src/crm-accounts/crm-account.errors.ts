import { notFound } from '@lms/platform';

export const crmAccountNotFound = (id: number) => notFound('CRM_ACCOUNT_NOT_FOUND', `Account ${id} does not exist.`);
