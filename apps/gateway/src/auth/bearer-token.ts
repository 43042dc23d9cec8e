import { tokenHash } from '@lms/contracts';

export type BearerCredentials = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/** A request's credentials, with the hash its token is cached, limited and invalidated under. */
export type RequestCredentials = Exclude<BearerCredentials, { kind: 'token' }> | { kind: 'token'; token: string; hash: string };

/** RFC 6750 b64token, bounded so a huge header never reaches the identity service. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]{1,512}=*$/;

/** Canonical standard base64 (RFC 4648 §4), as HTTP libraries encode `user:password` (RFC 7617). */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The token inside Basic credentials: `base64(anything:token)` (what a library sends given a user and a
 * password) or, with an empty password, `base64(token:)`; anything that does not decode to such a pair
 * is the token itself (`Basic <token>`, how the original service's clients send it).
 */
function basicToken(credentials: string): string {
  if (!STRICT_BASE64.test(credentials)) return credentials;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  // Random token bytes do not decode to printable text holding a colon; a user:password pair always does.
  const colon = decoded.indexOf(':');
  if (colon === -1 || !/^[\x20-\x7e]+$/.test(decoded)) return credentials;
  const password = decoded.slice(colon + 1);
  return password !== '' ? password : decoded.slice(0, colon);
}

/** `Bearer <token>`, and for the original service's clients `Basic <token>` or `Basic base64(user:token)`; scheme in any case. */
export function parseAuthorization(header: string | undefined): BearerCredentials {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^(Bearer|Basic) +(\S+)\s*$/i.exec(header);
  if (!match) return { kind: 'malformed' };
  const token = match[1].toLowerCase() === 'basic' ? basicToken(match[2]) : match[2];
  if (!B64TOKEN.test(token)) return { kind: 'malformed' };
  return { kind: 'token', token };
}

/** The request's credentials, parsed and hashed once however many hooks ask (rate limit, authentication). */
export function credentialsOf(request: { headers: { authorization?: string }; credentials: RequestCredentials | null }): RequestCredentials {
  if (request.credentials === null) {
    const parsed = parseAuthorization(request.headers.authorization);
    request.credentials = parsed.kind === 'token' ? { ...parsed, hash: tokenHash(parsed.token) } : parsed;
  }
  return request.credentials;
}
