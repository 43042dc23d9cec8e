import { hash } from 'node:crypto';

/**
 * A strong validator: the gateway sends exactly these bytes (no compression), so equal bytes are equal
 * representations. 128 bits of SHA-256 are plenty to tell versions of one resource apart.
 */
export function entityTag(body: string | Uint8Array): string {
  // The one-shot hash: half the time of a Hash object per answer.
  return `"${hash('sha256', body, 'base64url').slice(0, 22)}"`;
}

/** The opaque tags of an `If-None-Match` list (RFC 9110 §8.8.3), weakness dropped; `*` stands alone. */
export function parseEntityTags(header: string): '*' | string[] {
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  // An opaque tag may itself hold commas, so the list is scanned tag by tag rather than split on commas.
  const tag = /\s*(?:W\/)?("[^"]*")\s*(?:,|$)/y;
  let match: RegExpExecArray | null;
  while (tag.lastIndex < header.length && (match = tag.exec(header)) !== null) tags.push(match[1]);
  return tags;
}

/** `If-None-Match` uses the weak comparison: `W/"x"` matches `"x"`. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return tags.includes(opaque);
}
