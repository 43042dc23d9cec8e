import { Transform } from 'class-transformer';
import { IsRFC3339, ValidateBy, type ValidationOptions } from 'class-validator';

/** ISO 8601 extended date-times as scripts write them: `T` or a space, seconds optional, `.` or `,` before a fraction. */
const ISO_8601 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)? ?(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** `Z`, `UTC` and `GMT` as `Z`; `+hh` and `+hhmm` as `+hh:mm`. */
function offsetOf(zone: string): string {
  if (/^[a-z]/i.test(zone)) return 'Z';
  const digits = zone.slice(1).replace(':', '');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
}

/**
 * A date-time in one of the ISO 8601 forms clients of the original service send (`datetime.isoformat()`,
 * Ruby's `Time#to_s`, `+0000` offsets), rewritten as RFC 3339 with its precision kept: the form services read
 * (docs/compatibility.md "Date-times"). Without an offset it is `local` (kept so) or UTC. Anything else is
 * left as sent, for the validator to refuse.
 */
export function asRfc3339(value: unknown, withoutOffset: 'utc' | 'local' = 'utc'): unknown {
  if (typeof value !== 'string') return value;
  const match = ISO_8601.exec(value);
  if (!match) return value;
  const [, date, hoursMinutes, seconds = '00', fraction, zone] = match;
  const offset = zone ? offsetOf(zone) : withoutOffset === 'utc' ? 'Z' : '';
  return `${date}T${hoursMinutes}:${seconds}${fraction ? `.${fraction}` : ''}${offset}`;
}

/** Whether the date of an RFC 3339 text is a day of the calendar: the format allows 31 days in any month. */
export function isCalendarDay(value: unknown): boolean {
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})/.exec(value) : null;
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0 to 99 as 1900 to 1999
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The instants Postgres and `Date#toISOString` both write with a four-digit year: RFC 3339's 0000 is 1 BC to Postgres. */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
/** Whether an instant (ms since the epoch) lies in the years 0001 to 9999, UTC. */
export const inTimestampRange = (ms: number) => ms >= FIRST_INSTANT && ms <= LAST_INSTANT;
const inYears1To9999 = (value: unknown) => typeof value === 'string' && inTimestampRange(Date.parse(value));

/**
 * An RFC 3339 date-time in the document; any form `asRfc3339` reads from a client. Its day must exist:
 * `2026-02-31` passes the format, and `new Date` would read it as March 3rd. Its instant must lie in the
 * years 0001 to 9999 (UTC).
 */
export const IsTimestamp =
  (options?: ValidationOptions): PropertyDecorator =>
  (target, key) => {
    Transform(({ value }) => asRfc3339(value))(target, String(key));
    IsRFC3339(options)(target, key);
    ValidateBy({ name: 'isCalendarDay', validator: { validate: isCalendarDay, defaultMessage: () => `${String(key)} names a day the calendar does not have` } }, options)(target, key);
    ValidateBy({ name: 'inYears1To9999', validator: { validate: inYears1To9999, defaultMessage: () => `${String(key)} must lie in the years 0001 to 9999 (UTC)` } }, options)(target, key);
  };

/**
 * A date filter's comparison, at the millisecond resolution answers show: "after T" is at least T + 1 ms, so a
 * record whose shown time is T itself is neither after nor before T. The bound is a Date, not its ISO text,
 * which writes 9999-12-31T23:59:59.999Z + 1 ms as a year Postgres does not read (pg writes a Date in any year).
 */
export function dateFilter(value: string, op: '>' | '<'): { operator: '>=' | '<'; bound: Date } {
  return op === '>' ? { operator: '>=', bound: new Date(Date.parse(value) + 1) } : { operator: '<', bound: new Date(Date.parse(value)) };
}
