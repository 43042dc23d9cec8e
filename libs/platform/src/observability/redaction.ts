import { pino } from 'pino';

/**
 * What a log line must never hold, in one place: every logger of every deployable applies it to every
 * line (`createLogger`), whatever the field is called and however deep it sits.
 */
export const REDACTED = '[redacted]';

/** Field names whose values are secrets: tokens, passwords, Authorization and cookie headers, keys. */
const SECRET_FIELD = /pass(word|phrase)?($|_|[A-Z])|secret|token|authori[sz]ation|cookie|api[-_]?key|signing[-_]?key|private[-_]?key|credential|csv_password/i;

/** Values a failed query was run with: user data, sometimes secrets. The SQL text itself stays. */
const QUERY_VALUE_FIELDS = new Set(['parameters', 'detail']);

/** Query parameters that carry credentials (`?access_token=…`), inside any text such as a logged URL. */
const SECRET_QUERY_PARAM = /([?&](?:access_token|refresh_token|id_token|token|api_key|apikey|key|password|passwd|secret|signature|sig|auth|code|client_secret|csv_password)=)[^&#\s"]*/gi;

/** Credentials inside free text: an Authorization header's value, or one of our API tokens. */
const SECRET_IN_TEXT: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\blms_[A-Za-z0-9_-]{16,}/g, `lms_${REDACTED}`],
  [SECRET_QUERY_PARAM, `$1${REDACTED}`],
];

const MAX_DEPTH = 8;

export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_IN_TEXT) out = out.replace(pattern, replacement);
  return out;
}

/** The URL as logged: secret-looking query parameters keep their name and lose their value. */
export const redactUrl = (url: string): string => url.replace(SECRET_QUERY_PARAM, `$1${REDACTED}`);

/**
 * An object of some class other than the plain data a log line holds: pg-pool hangs the whole `client` on the
 * error of a connection it lost, a 4 KB dump of driver internals per line.
 */
const isInstance = (value: unknown): value is object =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !Buffer.isBuffer(value) &&
  !(value instanceof Date) &&
  !(value instanceof Error) &&
  Object.getPrototypeOf(value) !== null &&
  value.constructor !== Object;

/**
 * A copy of a log object with secrets replaced; errors become plain objects (pino's own shape) first, and an
 * error's fields holding instances of other classes are named (`[Client]`), not copied.
 */
export function redactValue(value: unknown, depth = 0, inError = false): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (value instanceof Error) return redactValue(pino.stdSerializers.err(value), depth + 1, true);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, inError));
  if (Buffer.isBuffer(value) || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_FIELD.test(key)) out[key] = item === undefined || item === null ? item : REDACTED;
    else if (inError && QUERY_VALUE_FIELDS.has(key)) out[key] = REDACTED;
    else if (inError && isInstance(item)) out[key] = `[${item.constructor.name || 'object'}]`;
    else out[key] = redactValue(item, depth + 1, inError);
  }
  return out;
}
