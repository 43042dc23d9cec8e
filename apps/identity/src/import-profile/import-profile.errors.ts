import type { FieldError } from '@lms/contracts';
import { badRequest } from '@lms/platform';

export const invalidImportColumns = (errors: FieldError[]) =>
  badRequest('IMPORT_PROFILE_INVALID_COLUMNS', 'The columns map names unknown fields or is malformed.', errors);
