export type RawQuery = Record<string, string | string[]>;

/**
 * The query part of a URL as the DTOs read it: `includes[]=a&includes[]=b` and `includes=a&includes=b`
 * both become `includes: ['a', 'b']`; a `[]` key is an array even with one value; other keys stay text.
 * Keys are own properties, so `__proto__` is just an unknown field for the validator to reject.
 */
export function normaliseQuery(search: string): RawQuery {
  const values = new Map<string, string[]>();
  const arrays = new Set<string>();
  for (const [rawKey, value] of new URLSearchParams(search)) {
    const isArray = rawKey.endsWith('[]');
    const key = isArray ? rawKey.slice(0, -2) : rawKey;
    if (key === '') continue;
    if (isArray) arrays.add(key);
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  }
  return Object.fromEntries(
    [...values].map(([key, list]) => [key, list.length === 1 && !arrays.has(key) ? list[0] : list]),
  );
}

/** The part of a request URL after `?`, without the `?`. */
export function searchOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}

/** The path of a request URL, without its query. */
export function pathOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : url.slice(0, at);
}
