import type { FieldError } from '@lms/contracts';
import { notFound, unprocessable } from '@lms/platform';

export const notificationTypeNotFound = (id: string) => notFound('NOTIFICATION_TYPE_NOT_FOUND', `Notification type "${id}" does not exist.`);

export const invalidChannels = (id: string, errors: FieldError[]) =>
  unprocessable('NOTIFICATION_TYPE_INVALID_CHANNELS', `The channels of notification type "${id}" cannot be set that way.`, errors);
