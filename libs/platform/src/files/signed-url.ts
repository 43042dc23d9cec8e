import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import { assertFileKey, isFileKey } from './file-store.js';

/** Where the gateway serves files: `/files/<key>`, outside `/api` (a signed URL carries no bearer token). */
export const FILES_PATH = '/files/';

/** How long a signed URL works: enough to follow a redirect and start a download, not to be shared for long. */
export const FILE_URL_TTL_SECONDS = 300;

const mac = (key: KeyObject, path: string, expires: number, name: string) =>
  createHmac('sha256', key).update(`GET\n${path}\n${expires}\n${name}`).digest('base64url');

/**
 * A relative URL to the file at `fileKey`, valid until `expires` (Unix seconds): an HMAC over the path, the
 * expiry and the download name, so none of them can be changed.
 */
export function signFileUrl(key: KeyObject, fileKey: string, name: string, now = Date.now(), ttlSeconds = FILE_URL_TTL_SECONDS): string {
  assertFileKey(fileKey);
  const path = `${FILES_PATH}${fileKey}`;
  const expires = Math.floor(now / 1000) + ttlSeconds;
  const query = new URLSearchParams({ name, expires: String(expires), signature: mac(key, path, expires, name) });
  return `${path}?${query}`;
}

export type FileUrlCheck = { ok: true; fileKey: string; name: string } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a signed URL's path and query; a tampered one is `invalid`, a genuine one past its time `expired`. */
export function verifyFileUrl(key: KeyObject, path: string, query: Record<string, unknown>, now = Date.now()): FileUrlCheck {
  const { name, expires, signature } = query;
  if (!path.startsWith(FILES_PATH) || typeof name !== 'string' || typeof expires !== 'string' || typeof signature !== 'string') return { ok: false, reason: 'invalid' };
  const fileKey = path.slice(FILES_PATH.length);
  const at = Number(expires);
  if (!isFileKey(fileKey) || !/^\d{1,12}$/.test(expires)) return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(mac(key, path, at, name));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (at * 1000 < now) return { ok: false, reason: 'expired' };
  return { ok: true, fileKey, name };
}
