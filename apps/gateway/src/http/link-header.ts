export interface PageLinkInput {
  /** Where the links start: the API's public base URL, e.g. `https://lms.example.com` (`publicBase`). */
  base: string;
  /** Path of the list as requested, e.g. `/api/author/custom_fields` (doubled slashes are made one). */
  path: string;
  /** The request's query without `?`; every parameter but `page`, `per_page` and `limit` is kept as sent. */
  search: string;
  page: number;
  perPage: number;
  /** The list's exact size, or (a list too big to count) only whether a page follows: then no `last`. */
  size: number | { more: boolean };
  /** The service's bookmark of the following page: `next` then carries it instead of a page number. */
  next?: string;
}

/** `limit` is the compatibility name of `per_page` (docs/compatibility.md): the links carry `per_page` instead. */
const PAGING_KEYS = new Set(['page', 'per_page', 'limit']);

function keyOf(pair: string): string {
  const raw = pair.split('=', 1)[0];
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

export function lastPage(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/** A Host header as a URL authority may hold it: a name or an address, and a port. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Whether a proxy in front says the client spoke HTTPS (`X-Forwarded-Proto`, or RFC 7239 `Forwarded`
 * proto, the first hop's). Trusted only to upgrade: a client that forges it gets https links for itself,
 * and never an http link for anyone.
 */
export function forwardedHttps(headers: Record<string, string | string[] | undefined>): boolean {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(',')[0].trim().toLowerCase();
  const forwarded = first(headers['forwarded']);
  return first(headers['x-forwarded-proto']) === 'https' || (forwarded !== undefined && /(^|;)\s*proto="?https"?\s*(;|$)/.test(forwarded));
}

/**
 * The base of the links: PUBLIC_URL when set; else the request's scheme and Host, as the original service
 * answered (clients such as Python's requests follow a link as it is, and cannot follow a bare path), in
 * https when a proxy in front ended TLS (so a client following a link never sends its token in the clear);
 * else (no usable Host) nothing, so the links stay path-absolute.
 */
export function publicBase(publicUrl: string | undefined, protocol: string, host: string | undefined, https = false): string {
  if (publicUrl) return publicUrl;
  return host && HOST.test(host) ? `${https ? 'https' : protocol}://${host}` : '';
}

/** RFC 8288 `Link` value with first, prev, next and (for a counted list) last, as absolute URLs. */
export function pageLinks({ base, path, search, page, perPage, size, next }: PageLinkInput): string {
  const kept = search.split('&').filter((pair) => pair !== '' && !PAGING_KEYS.has(keyOf(pair)));
  // `//api/…` as the router read it (`/api/…`): without a base, `//api` would name a host.
  const list = path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
  const url = (n: number | string) => `${base}${list}?${[...kept, `page=${n}`, `per_page=${perPage}`].join('&')}`;
  const last = typeof size === 'number' ? lastPage(size, perPage) : undefined;
  const links: [string, number | string][] = [['first', 1]];
  if (page > 1) links.push(['prev', last === undefined ? page - 1 : Math.min(page - 1, last)]);
  if (last === undefined ? (size as { more: boolean }).more : page < last) links.push(['next', next ?? page + 1]);
  if (last !== undefined) links.push(['last', last]);
  return links.map(([rel, n]) => `<${url(n)}>; rel="${rel}"`).join(', ');
}

/**
 * A copy of `body` whose values at `paths` (dotted, through arrays) that are path-absolute URLs (`/…`, not
 * `//…`) start with `base`; everything else as it was, and the body itself without a base.
 */
export function withAbsoluteUrls(body: unknown, paths: string[], base: string): unknown {
  if (!base) return body;
  const at = (node: unknown, keys: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => at(item, keys));
    if (keys.length === 0) return typeof node === 'string' && node.startsWith('/') && !node.startsWith('//') ? `${base}${node}` : node;
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, keys[0])) return node;
    return { ...node, [keys[0]]: at((node as Record<string, unknown>)[keys[0]], keys.slice(1)) };
  };
  return paths.reduce((out, path) => at(out, path.split('.')), body);
}
