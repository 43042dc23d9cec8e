import { forwardedHttps, lastPage, pageLinks, publicBase, withAbsoluteUrls } from './link-header.js';

const rels = (link: string) => Object.fromEntries(link.split(', ').map((part) => {
  const [, url, rel] = /^<([^>]*)>; rel="(\w+)"$/.exec(part) ?? [];
  return [rel, url];
}));

describe('pageLinks', () => {
  it('links first, prev, next and last, keeping the other parameters as sent', () => {
    const link = pageLinks({ base: '', path: '/api/author/widgets', search: 'sort=name&page=2&includes[]=counts&per_page=10', page: 2, perPage: 10, size: 35 });
    expect(rels(link)).toEqual({
      first: '/api/author/widgets?sort=name&includes[]=counts&page=1&per_page=10',
      prev: '/api/author/widgets?sort=name&includes[]=counts&page=1&per_page=10',
      next: '/api/author/widgets?sort=name&includes[]=counts&page=3&per_page=10',
      last: '/api/author/widgets?sort=name&includes[]=counts&page=4&per_page=10',
    });
  });

  it('has no prev on the first page and no next on the last', () => {
    expect(Object.keys(rels(pageLinks({ base: '', path: '/x', search: '', page: 1, perPage: 50, size: 120 })))).toEqual(['first', 'next', 'last']);
    expect(Object.keys(rels(pageLinks({ base: '', path: '/x', search: '', page: 3, perPage: 50, size: 120 })))).toEqual(['first', 'prev', 'last']);
  });

  it('points prev of a page past the end at the last page', () => {
    expect(rels(pageLinks({ base: '', path: '/x', search: '', page: 9, perPage: 50, size: 120 })).prev).toBe('/x?page=3&per_page=50');
  });

  it('has one page for an empty list', () => {
    expect(lastPage(0, 50)).toBe(1);
    expect(rels(pageLinks({ base: '', path: '/x', search: 'page=1', page: 1, perPage: 50, size: 0 }))).toEqual({ first: '/x?page=1&per_page=50', last: '/x?page=1&per_page=50' });
  });

  it('writes per_page where the request said limit', () => {
    expect(rels(pageLinks({ base: '', path: '/x', search: 'limit=10&q=a', page: 1, perPage: 10, size: 25 })).next).toBe('/x?q=a&page=2&per_page=10');
  });

  it('drops encoded paging keys too', () => {
    expect(rels(pageLinks({ base: '', path: '/x', search: 'p%61ge=5&q=a%20b', page: 1, perPage: 10, size: 5 })).first).toBe('/x?q=a%20b&page=1&per_page=10');
  });
});

describe('pageLinks with a bookmark', () => {
  it('puts the service’s bookmark in next and page numbers in the others', () => {
    const link = pageLinks({ base: '', path: '/x', search: 'page=bookmark:WzNd&search=a', page: 3, perPage: 10, size: 100, next: 'bookmark:WzQsMzBd' });
    expect(rels(link)).toEqual({
      first: '/x?search=a&page=1&per_page=10',
      prev: '/x?search=a&page=2&per_page=10',
      next: '/x?search=a&page=bookmark:WzQsMzBd&per_page=10',
      last: '/x?search=a&page=10&per_page=10',
    });
  });
});

describe('pageLinks of a list too big to count', () => {
  it('has no last, and next only while a page follows', () => {
    expect(rels(pageLinks({ base: '', path: '/x', search: '', page: 7, perPage: 50, size: { more: true }, next: 'bookmark:WzhdXQ' }))).toEqual({
      first: '/x?page=1&per_page=50',
      prev: '/x?page=6&per_page=50',
      next: '/x?page=bookmark:WzhdXQ&per_page=50',
    });
    expect(Object.keys(rels(pageLinks({ base: '', path: '/x', search: '', page: 300, perPage: 50, size: { more: false } })))).toEqual(['first', 'prev']);
  });
});

describe('publicBase', () => {
  it('is PUBLIC_URL when set, else the request\'s scheme and Host, else nothing (path-absolute links)', () => {
    expect(publicBase('https://lms.example.com/api-gw', 'http', 'internal:3000')).toBe('https://lms.example.com/api-gw');
    expect(publicBase(undefined, 'http', 'localhost:3000')).toBe('http://localhost:3000');
    expect(publicBase(undefined, 'https', '[::1]:8443')).toBe('https://[::1]:8443');
    expect(publicBase(undefined, 'http', undefined)).toBe('');
  });

  it('is https when a proxy in front ended TLS, and never downgrades on a header', () => {
    expect(publicBase(undefined, 'http', 'lms.example.com', true)).toBe('https://lms.example.com');
    expect(publicBase('http://plain.example.com', 'http', 'lms.example.com', true)).toBe('http://plain.example.com');
    expect(forwardedHttps({ 'x-forwarded-proto': 'https' })).toBe(true);
    expect(forwardedHttps({ 'x-forwarded-proto': 'HTTPS, http' })).toBe(true);
    expect(forwardedHttps({ forwarded: 'for=192.0.2.60;proto=https;by=203.0.113.43' })).toBe(true);
    expect(forwardedHttps({ forwarded: 'proto="https", proto=http' })).toBe(true);
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }, { 'x-forwarded-proto': 'http, https' }, { forwarded: 'for=x;proto=http' }, { forwarded: 'for="proto=https"' }]) {
      expect(forwardedHttps(headers)).toBe(false);
    }
  });

  it('never builds a link from a Host that is not a host name and port', () => {
    for (const host of ['evil.com>; rel="next", <x', 'a b', 'user@host', 'host/path', 'host:port', '']) expect(publicBase(undefined, 'http', host)).toBe('');
  });

  it('starts every link with the base', () => {
    expect(rels(pageLinks({ base: 'https://lms.example.com', path: '/x', search: 'q=a', page: 1, perPage: 10, size: 25 })).next).toBe('https://lms.example.com/x?q=a&page=2&per_page=10');
  });
});

describe('withAbsoluteUrls', () => {
  const base = 'https://lms.example.com';

  it('makes the path-absolute URLs at the paths absolute, through arrays, and leaves the rest', () => {
    expect(withAbsoluteUrls({ url: '/scorm/launch/t', other: '/x' }, ['url'], base)).toEqual({ url: 'https://lms.example.com/scorm/launch/t', other: '/x' });
    expect(withAbsoluteUrls({ items: [{ t: { u: '/a' } }, { t: { u: 'https://vendor.example/b' } }, { t: null }] }, ['items.t.u'], base)).toEqual({
      items: [{ t: { u: 'https://lms.example.com/a' } }, { t: { u: 'https://vendor.example/b' } }, { t: null }],
    });
    expect(withAbsoluteUrls({ url: '//cdn.example/x' }, ['url'], base)).toEqual({ url: '//cdn.example/x' });
    expect(withAbsoluteUrls({ url: null, n: 1 }, ['url', 'missing.key'], base)).toEqual({ url: null, n: 1 });
  });

  it('leaves the body as it is without a base', () => {
    const body = { url: '/a' };
    expect(withAbsoluteUrls(body, ['url'], '')).toBe(body);
  });
});
