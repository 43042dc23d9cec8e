import { normaliseQuery, pathOf, searchOf } from './query-normaliser.js';

describe('normaliseQuery', () => {
  it('turns key[] and repeated keys into arrays', () => {
    expect(normaliseQuery('includes[]=a&includes[]=b&filters=x&filters=y')).toEqual({ includes: ['a', 'b'], filters: ['x', 'y'] });
  });

  it('keeps a single [] value an array and a single plain value text', () => {
    expect(normaliseQuery('includes[]=a&search=b')).toEqual({ includes: ['a'], search: 'b' });
  });

  it('decodes values, + included', () => {
    expect(normaliseQuery('includes%5B%5D=a&search=John+Doe%21')).toEqual({ includes: ['a'], search: 'John Doe!' });
  });

  it('makes __proto__ an ordinary key for the validator to reject', () => {
    const query = normaliseQuery('__proto__=x&a=1');
    expect(Object.keys(query)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
  });

  it('ignores empty keys and reads an empty query', () => {
    expect(normaliseQuery('=a&[]=b')).toEqual({});
    expect(normaliseQuery('')).toEqual({});
  });
});

describe('searchOf / pathOf', () => {
  it('split a request URL at the first ?', () => {
    expect(searchOf('/a/b?x=1&y=?')).toBe('x=1&y=?');
    expect(pathOf('/a/b?x=1')).toBe('/a/b');
    expect(searchOf('/a')).toBe('');
  });
});
