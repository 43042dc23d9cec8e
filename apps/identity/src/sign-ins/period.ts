import { badRequest } from '@lms/platform';

/** The default SignInReport period: the last 30 days, today included. */
export const DEFAULT_PERIOD_DAYS = 30;

const DAY_MS = 86_400_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A period of whole UTC days, inclusive: [start 00:00, end + 1 day 00:00). */
export function periodOf(start?: string, end?: string, now = Date.now()): { start: string; end: string; from: Date; until: Date } {
  const endDate = end ?? isoDate(now);
  const startDate = start ?? isoDate(Date.parse(`${endDate}T00:00:00Z`) - (DEFAULT_PERIOD_DAYS - 1) * DAY_MS);
  const from = new Date(`${startDate}T00:00:00Z`);
  const until = new Date(Date.parse(`${endDate}T00:00:00Z`) + DAY_MS);
  if (Number.isNaN(from.getTime()) || Number.isNaN(until.getTime())) throw badRequest('INVALID_PERIOD', 'start_date and end_date are dates, YYYY-MM-DD.');
  if (from >= until) throw badRequest('INVALID_PERIOD', 'start_date must not be after end_date.', [{ field: 'start_date', message: 'must not be after end_date' }]);
  return { start: startDate, end: endDate, from, until };
}
