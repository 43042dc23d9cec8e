import { entityTag, ifNoneMatchHits, parseEntityTags } from './etag.js';

describe('entityTag', () => {
  it('is a quoted strong tag that follows the bytes', () => {
    const tag = entityTag('{"a":1}');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(entityTag('{"a":1}')).toBe(tag);
    expect(entityTag('{"a":2}')).not.toBe(tag);
    expect(entityTag(Buffer.from('{"a":1}'))).toBe(tag);
  });
});

describe('parseEntityTags', () => {
  it('reads a list of strong and weak tags', () => {
    expect(parseEntityTags('"a", W/"b" ,"c"')).toEqual(['"a"', '"b"', '"c"']);
  });

  it('keeps commas inside a tag', () => {
    expect(parseEntityTags('"a,b", "c"')).toEqual(['"a,b"', '"c"']);
  });

  it('reads the wildcard', () => {
    expect(parseEntityTags(' * ')).toBe('*');
  });

  it('stops at garbage rather than guessing', () => {
    expect(parseEntityTags('"a", nonsense, "b"')).toEqual(['"a"']);
    expect(parseEntityTags('')).toEqual([]);
  });
});

describe('ifNoneMatchHits', () => {
  const tag = '"xyz"';

  it('matches the same tag, weakly or in a list', () => {
    expect(ifNoneMatchHits('"xyz"', tag)).toBe(true);
    expect(ifNoneMatchHits('W/"xyz"', tag)).toBe(true);
    expect(ifNoneMatchHits('"old", "xyz"', tag)).toBe(true);
    expect(ifNoneMatchHits('"xyz"', 'W/"xyz"')).toBe(true);
  });

  it('matches any tag with *', () => {
    expect(ifNoneMatchHits('*', tag)).toBe(true);
  });

  it('does not match other tags or a missing header', () => {
    expect(ifNoneMatchHits('"other"', tag)).toBe(false);
    expect(ifNoneMatchHits('xyz', tag)).toBe(false);
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
  });
});
