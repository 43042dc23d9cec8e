import type { KeyObject } from 'node:crypto';
import { verifyFileUrl, verifyPlayerToken } from '@lms/platform';

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

export function linkCredentialOf(request: LinkRequest, key: KeyObject): LinkCredential | undefined {
  const route = request.routeOptions.url;
  if (route === '/files/*') {
    const url = new URL(request.url, 'http://gateway');
    const check = verifyFileUrl(key, url.pathname, Object.fromEntries(url.searchParams));
    return check.ok ? { kind: 'link', key: `file:${check.fileKey}` } : INVALID;
  }
  const kind = route === '/scorm/launch/:token' ? 'launch' : route?.startsWith('/scorm/s/:token/') ? 'session' : undefined;
  if (!kind) return undefined;
  const check = verifyPlayerToken(key, (request.params as { token?: string }).token ?? '', kind);
  return check.ok ? { kind: 'link', key: `scorm:${check.claims.accountId}:${check.claims.registrationId}` } : INVALID;
}
