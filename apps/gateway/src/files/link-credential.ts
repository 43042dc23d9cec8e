import type { KeyObject } from 'node:crypto';
import { tokenHash } from '@lms/contracts';
import { FILES_PATH, verifyFileUrl, verifyPlayerToken } from '@lms/platform';

/**
 * What a request to a signed link carries in place of a bearer token (docs/rate-limits.md): `link` with
 * the hash of a credential that verifies (a file URL's signature, a SCORM player token), `invalid` for one
 * that does not or has expired; undefined off the linked paths (`/files/`, `/scorm/launch/`, `/scorm/s/`).
 */
export type LinkCredential = { kind: 'link'; hash: string } | { kind: 'invalid' };

const INVALID: LinkCredential = { kind: 'invalid' };
const PLAYER_KINDS = { launch: 'launch', s: 'session' } as const;

export function linkCredentialOf(url: string, key: KeyObject): LinkCredential | undefined {
  if (url.startsWith(FILES_PATH)) {
    const parsed = new URL(url, 'http://gateway');
    const query = Object.fromEntries(parsed.searchParams);
    return verifyFileUrl(key, parsed.pathname, query).ok ? { kind: 'link', hash: tokenHash(query.signature) } : INVALID;
  }
  if (!url.startsWith('/scorm/')) return undefined;
  // `/scorm/launch/<token>`, `/scorm/s/<token>/…`: the player's static scripts carry no credential.
  const [, , kind, token = ''] = url.split(/[/?]/, 4);
  if (kind !== 'launch' && kind !== 's') return undefined;
  return verifyPlayerToken(key, token, PLAYER_KINDS[kind]).ok ? { kind: 'link', hash: tokenHash(token) } : INVALID;
}
