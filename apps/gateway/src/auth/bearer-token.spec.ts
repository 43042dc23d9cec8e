import { createHash } from 'node:crypto';
import { tokenHash } from '@lms/contracts';
import { parseAuthorization } from './bearer-token.js';

describe('parseAuthorization', () => {
  it('reads a bearer token, scheme in any case', () => {
    expect(parseAuthorization('Bearer abc.DEF-123_~+/==')).toEqual({ kind: 'token', token: 'abc.DEF-123_~+/==' });
    expect(parseAuthorization('bearer abc')).toEqual({ kind: 'token', token: 'abc' });
  });

  it('tells a missing header from a malformed one', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'missing' });
    expect(parseAuthorization('  ')).toEqual({ kind: 'missing' });
    for (const header of ['Basic dXNlcjpwdw==', 'Bearer', 'Bearer a b', 'Bearer ab"c', `Bearer ${'a'.repeat(513)}`]) {
      expect(parseAuthorization(header)).toEqual({ kind: 'malformed' });
    }
  });
});

describe('tokenHash', () => {
  it('is the hex SHA-256 of the token', () => {
    expect(tokenHash('secret')).toBe(createHash('sha256').update('secret').digest('hex'));
    expect(tokenHash('secret')).toMatch(/^[0-9a-f]{64}$/);
  });
});
