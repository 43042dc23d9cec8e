import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * A short credential for one purpose: `<claims as base64url JSON>.<HMAC>`, URL-safe so it can sit in a
 * path segment or a query. The `purpose` is part of what is signed, so a token of one purpose never passes
 * for another (a SCORM player session for a live-updates subscription, say) even under the same key.
 */
export function signToken(key: KeyObject, purpose: string, claims: Record<string, unknown>, ttlSeconds: number, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + ttlSeconds;
  const body = Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url');
  return `${body}.${mac(key, purpose, body)}`;
}

/** `expiresAt`: when the token stops working (ms since the epoch). */
export type TokenCheck<T> = { ok: true; claims: T; expiresAt: number } | { ok: false; reason: 'invalid' | 'expired' };

/** The claims of a genuine, unexpired token of `purpose`; a tampered or foreign one is `invalid`. */
export function verifyToken<T extends Record<string, unknown>>(key: KeyObject, purpose: string, token: string, now = Date.now()): TokenCheck<T> {
  const [body, signature, ...rest] = token.split('.');
  if (!body || !signature || rest.length > 0 || token.length > 2048) return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(mac(key, purpose, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let parsed: T & { exp: number };
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T & { exp: number };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (!(parsed.exp * 1000 >= now)) return { ok: false, reason: 'expired' };
  const { exp: _exp, ...claims } = parsed;
  return { ok: true, claims: claims as unknown as T, expiresAt: parsed.exp * 1000 };
}

const mac = (key: KeyObject, purpose: string, body: string) => createHmac('sha256', key).update(`${purpose}\n${body}`).digest('base64url');
