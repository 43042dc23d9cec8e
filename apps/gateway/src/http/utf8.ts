import { isUtf8 } from 'node:buffer';
import { ProblemError } from './problem.js';

const notUtf8 = (detail: string) => new ProblemError(400, 'MALFORMED_REQUEST', detail);

/**
 * A compressed body (`Content-Encoding: gzip`) is not inflated (Rails did not either): 415 naming the coding,
 * with `Accept-Encoding: identity` (RFC 9110 §15.5.16), rather than a 400 about its bytes.
 */
export function assertIdentityCoding(coding: string | undefined): void {
  if (coding === undefined || coding === '' || coding.trim().toLowerCase() === 'identity') return;
  throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', `A body with Content-Encoding ${coding.slice(0, 40)} is not read: send it uncompressed.`, undefined, { 'accept-encoding': 'identity' });
}

/**
 * A body's text, refused (400) when its bytes are not UTF-8: decoding would put U+FFFD in their place and the
 * service would store that (`café` sent in Latin-1 became `caf�`). Rails answered such a body 400 too. Only a
 * text holding U+FFFD can have had bytes replaced, so the exact check runs only then.
 */
export function utf8Text(raw: Buffer): string {
  const text = raw.toString('utf8');
  if (text.includes('\uFFFD') && !isUtf8(raw)) throw notUtf8('The request body is not valid UTF-8 text; send text as UTF-8 (the only charset read).');
  return text;
}

/** An escape of a byte above ASCII (`%E9`): only then can percent-decoding produce U+FFFD. */
const HIGH_BYTE_ESCAPE = /%[89A-Fa-f][0-9A-Fa-f]/;

/** A `%` that starts no escape: kept as text by the query parser, so escaped here before decoding. */
const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/**
 * Refuses (400) a query string or form whose percent-encoded bytes are not UTF-8 (`name=caf%E9`, Latin-1):
 * URLSearchParams would read U+FFFD for them, silently. A text with no escape above `%7F` passes at once.
 */
export function assertPercentUtf8(text: string, what: string): void {
  if (!HIGH_BYTE_ESCAPE.test(text)) return;
  try {
    decodeURIComponent(text.replace(LONE_PERCENT, '%25'));
  } catch {
    throw notUtf8(`The ${what} has percent-encoded bytes that are not UTF-8 (e.g. Latin-1 %E9 for é, which is %C3%A9 in UTF-8).`);
  }
}
