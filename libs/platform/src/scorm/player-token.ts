import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * What a SCORM player credential names: one learner's registration (an attempt of one enrollment) in one
 * account, and the package that attempt plays. Nothing else: it reaches no other endpoint.
 */
export interface PlayerClaims {
  /** `launch`: the short-lived URL a learner opens; `session`: what the open player page commits with. */
  kind: 'launch' | 'session';
  accountId: number;
  userId: number;
  registrationId: number;
  packageId: string;
}

/** A launch URL works long enough to be opened (a mobile redirect, a click); a session lasts a sitting. */
export const PLAYER_TOKEN_TTL_SECONDS: Record<PlayerClaims['kind'], number> = { launch: 300, session: 8 * 3600 };

// Domain-separated from the file URLs signed with the same key, so neither can pass for the other.
const mac = (key: KeyObject, body: string) => createHmac('sha256', key).update(`scorm-player\n${body}`).digest('base64url');

/** `<claims as base64url JSON>.<HMAC>`: URL-safe, so it can sit in a path segment. */
export function signPlayerToken(key: KeyObject, claims: PlayerClaims, now = Date.now()): string {
  const exp = Math.floor(now / 1000) + PLAYER_TOKEN_TTL_SECONDS[claims.kind];
  const body = Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url');
  return `${body}.${mac(key, body)}`;
}

export type PlayerTokenCheck = { ok: true; claims: PlayerClaims } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a token and its kind; a tampered or foreign one is `invalid`, a genuine one past its time `expired`. */
export function verifyPlayerToken(key: KeyObject, token: string, kind: PlayerClaims['kind'], now = Date.now()): PlayerTokenCheck {
  const [body, signature, ...rest] = token.split('.');
  if (!body || !signature || rest.length > 0 || token.length > 1024) return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(mac(key, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let parsed: PlayerClaims & { exp: number };
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as PlayerClaims & { exp: number };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (parsed.kind !== kind) return { ok: false, reason: 'invalid' };
  if (!(parsed.exp * 1000 >= now)) return { ok: false, reason: 'expired' };
  const { accountId, userId, registrationId, packageId } = parsed;
  return { ok: true, claims: { kind, accountId, userId, registrationId, packageId } };
}
