import type { KeyObject } from 'node:crypto';
import { type FileUrlCheck, type PlayerClaims, type PlayerTokenCheck, verifyFileUrl, verifyPlayerToken } from '@lms/platform';

/**
 * What a request to a signed link carries in place of a bearer token (docs/rate-limits.md): `link` with the
 * grant its credential names (a file; a learner's SCORM registration, whichever launch minted it) when the
 * credential verifies, `invalid` when it does not or has expired; undefined off the linked routes. Read from
 * the route Fastify matched and the parameters it decoded, as the controllers read them: a percent-encoded
 * path is judged as it is served.
 */
export type LinkCredential = { kind: 'link'; key: string } | { kind: 'invalid' };

export interface LinkRequest {
  url: string;
  routeOptions: { url?: string };
  params: unknown;
}

const INVALID: LinkCredential = { kind: 'invalid' };

/** Each request's link, verified once: the rate limit and the controller that serves it both ask. */
const checks = new WeakMap<LinkRequest, FileUrlCheck | PlayerTokenCheck>();

function once<T extends FileUrlCheck | PlayerTokenCheck>(request: LinkRequest, verify: () => T): T {
  let check = checks.get(request) as T | undefined;
  if (!check) checks.set(request, (check = verify()));
  return check;
}

/** The request's signed file URL (`/files/<key>?name&expires&signature`), verified. */
export function fileUrlCheckOf(request: LinkRequest, key: KeyObject): FileUrlCheck {
  return once(request, () => {
    const url = new URL(request.url, 'http://gateway');
    return verifyFileUrl(key, url.pathname, Object.fromEntries(url.searchParams));
  });
}

/** The request's SCORM player token (the `:token` of its path), verified as a credential of `kind` (its route's one kind). */
export function playerTokenCheckOf(request: LinkRequest, key: KeyObject, kind: PlayerClaims['kind']): PlayerTokenCheck {
  return once(request, () => verifyPlayerToken(key, (request.params as { token?: string }).token ?? '', kind));
}

export function linkCredentialOf(request: LinkRequest, key: KeyObject): LinkCredential | undefined {
  const route = request.routeOptions.url;
  if (route === '/files/*') {
    const check = fileUrlCheckOf(request, key);
    return check.ok ? { kind: 'link', key: `file:${check.fileKey}` } : INVALID;
  }
  const kind = route === '/scorm/launch/:token' ? 'launch' : route?.startsWith('/scorm/s/:token/') ? 'session' : undefined;
  if (!kind) return undefined;
  const check = playerTokenCheckOf(request, key, kind);
  return check.ok ? { kind: 'link', key: `scorm:${check.claims.accountId}:${check.claims.registrationId}` } : INVALID;
}
