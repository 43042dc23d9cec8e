import type { KeyObject } from 'node:crypto';
import { signToken, verifyToken } from '../tokens/signed-token.js';

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

// Each kind is its own purpose: a launch link never passes for a session, nor the other way round.
const purpose = (kind: PlayerClaims['kind']) => `scorm-player-${kind}`;

export function signPlayerToken(key: KeyObject, claims: PlayerClaims, now = Date.now()): string {
  return signToken(key, purpose(claims.kind), { ...claims }, PLAYER_TOKEN_TTL_SECONDS[claims.kind], now);
}

export type PlayerTokenCheck = { ok: true; claims: PlayerClaims } | { ok: false; reason: 'invalid' | 'expired' };

export function verifyPlayerToken(key: KeyObject, token: string, kind: PlayerClaims['kind'], now = Date.now()): PlayerTokenCheck {
  const check = verifyToken<PlayerClaims & Record<string, unknown>>(key, purpose(kind), token, now);
  if (!check.ok) return check;
  const { accountId, userId, registrationId, packageId } = check.claims;
  return { ok: true, claims: { kind, accountId, userId, registrationId, packageId } };
}
