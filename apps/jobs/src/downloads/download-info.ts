import type { DownloadType, FieldError } from '@lms/contracts';
import { unprocessable } from '@lms/platform';

const MAX_ID = 2_147_483_647;
const invalid = (errors: FieldError[]) => unprocessable('INVALID_DOWNLOAD_INFO', 'The download was not created: its info is not valid for its type.', errors);

function id(info: Record<string, unknown>, key: string, required: boolean): number | undefined {
  const value = info[key];
  if (value === undefined || value === null) {
    if (required) throw invalid([{ field: `download.info.${key}`, message: 'is required' }]);
    return undefined;
  }
  // Ids are Integers in requests and Strings in some responses: both forms name the record.
  const number = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > MAX_ID) throw invalid([{ field: `download.info.${key}`, message: 'must be a positive integer id' }]);
  return number;
}

function date(info: Record<string, unknown>, key: string): string | undefined {
  const value = info[key];
  if (value === undefined || value === null) return undefined;
  const valid = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
  if (!valid) throw invalid([{ field: `download.info.${key}`, message: 'must be a date, YYYY-MM-DD' }]);
  return value;
}

/**
 * A type's `info`, reduced to the parameters its row source takes, and those checked (422 naming the field).
 * Other keys are left out, not refused: the spec calls `info` "currently unused", so scripts written against
 * it may send anything there (docs/jobs.md).
 */
export function downloadInfo(type: DownloadType, info: Record<string, unknown>): Record<string, unknown> {
  switch (type) {
    case 'users':
      return {};
    case 'course_enrollments':
      return { course_template_id: id(info, 'course_template_id', true) };
    case 'session_registrations':
      return { session_id: id(info, 'session_id', true) };
    case 'quiz_report': {
      const course = id(info, 'course_template_id', false);
      return course === undefined ? {} : { course_template_id: course };
    }
    case 'sign_in_report': {
      const start = date(info, 'start_date');
      const end = date(info, 'end_date');
      if (start && end && start > end) throw invalid([{ field: 'download.info.start_date', message: 'must not be after end_date' }]);
      return { ...(start ? { start_date: start } : {}), ...(end ? { end_date: end } : {}) };
    }
  }
}
