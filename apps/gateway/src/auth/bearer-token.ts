export type BearerCredentials = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/** RFC 6750 b64token, bounded so a huge header never reaches the identity service. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]{1,512}=*$/;

export function parseAuthorization(header: string | undefined): BearerCredentials {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match || !B64TOKEN.test(match[1])) return { kind: 'malformed' };
  return { kind: 'token', token: match[1] };
}
