import { createHmac, randomBytes } from 'node:crypto';

/** RFC 3986 percent-encoding, as OAuth 1.0a (RFC 5849 §3.6) requires: only unreserved characters stay. */
export const oauthEncode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The HMAC-SHA1 signature of a form POST to `url` (RFC 5849 §3.4): the base string joins the method, the
 * URL without query or fragment, and every parameter (form and the URL's query) sorted by encoded name
 * then value; the key is the consumer secret and an empty token secret.
 */
export function oauthSignature(method: string, url: string, params: Record<string, string>, consumerSecret: string): string {
  const target = new URL(url);
  const pairs: [string, string][] = [...target.searchParams.entries(), ...Object.entries(params).filter(([name]) => name !== 'oauth_signature')].map(([k, v]) => [oauthEncode(k), oauthEncode(v)]);
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const normalized = pairs.map(([k, v]) => `${k}=${v}`).join('&');
  const defaultPort = (target.protocol === 'http:' && target.port === '80') || (target.protocol === 'https:' && target.port === '443');
  const base = `${target.protocol}//${target.hostname.toLowerCase()}${target.port && !defaultPort ? `:${target.port}` : ''}${target.pathname}`;
  const text = [method.toUpperCase(), oauthEncode(base), oauthEncode(normalized)].join('&');
  return createHmac('sha1', `${oauthEncode(consumerSecret)}&`).update(text).digest('base64');
}

export const oauthNonce = (): string => randomBytes(16).toString('hex');
