import { createHash } from 'node:crypto';
import { tokenHash } from '@lms/contracts';
import { credentialsOf, parseAuthorization } from './bearer-token.js';

describe('parseAuthorization', () => {
  it('reads a bearer token, scheme in any case', () => {
    expect(parseAuthorization('Bearer abc.DEF-123_~+/==')).toEqual({ kind: 'token', token: 'abc.DEF-123_~+/==' });
    expect(parseAuthorization('bearer abc')).toEqual({ kind: 'token', token: 'abc' });
  });

  it('tells a missing header from a malformed one', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'missing' });
    expect(parseAuthorization('  ')).toEqual({ kind: 'missing' });
    for (const header of ['Bearer', 'Bearer a b', 'Bearer ab"c', `Bearer ${'a'.repeat(513)}`, 'Basic', 'Basic a b', 'Digest abc', 'Token abc']) {
      expect(parseAuthorization(header)).toEqual({ kind: 'malformed' });
    }
  });

  it('reads the token given as Basic credentials, as the original service’s clients send it', () => {
    const token = 'lms_AbC-123_xyz';
    const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
    expect(parseAuthorization(`Basic ${token}`)).toEqual({ kind: 'token', token });
    expect(parseAuthorization(`basic ${token}`)).toEqual({ kind: 'token', token });
    expect(parseAuthorization(basic(`anything:${token}`))).toEqual({ kind: 'token', token });
    expect(parseAuthorization(basic(`:${token}`))).toEqual({ kind: 'token', token });
    expect(parseAuthorization(basic(`${token}:`))).toEqual({ kind: 'token', token });
    // The password may itself hold a colon; only the first one separates the user.
    expect(parseAuthorization(basic('user:a:b'))).toEqual({ kind: 'malformed' });
    expect(parseAuthorization(basic('user:pw'))).toEqual({ kind: 'token', token: 'pw' });
  });

  it('takes a base64-looking token that does not decode to user:password as the token itself', () => {
    // 'dG9rZW4=' is base64 of "token": no colon, so it is a token as sent.
    expect(parseAuthorization('Basic dG9rZW4=')).toEqual({ kind: 'token', token: 'dG9rZW4=' });
    expect(parseAuthorization(`Basic ${'a'.repeat(513)}`)).toEqual({ kind: 'malformed' });
  });
});

describe('tokenHash', () => {
  it('is the hex SHA-256 of the token', () => {
    expect(tokenHash('secret')).toBe(createHash('sha256').update('secret').digest('hex'));
    expect(tokenHash('secret')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('credentialsOf', () => {
  it('reads a request’s credentials once, with the token’s hash, however many hooks ask', () => {
    const request = { headers: { authorization: 'Bearer abc' }, credentials: null };
    const first = credentialsOf(request);
    expect(first).toEqual({ kind: 'token', token: 'abc', hash: tokenHash('abc') });
    request.headers.authorization = 'Bearer changed';
    expect(credentialsOf(request)).toBe(first);
    expect(credentialsOf({ headers: { authorization: 'Bearer changed' }, credentials: null })).toEqual({ kind: 'token', token: 'changed', hash: tokenHash('changed') });
    expect(credentialsOf({ headers: {}, credentials: null })).toEqual({ kind: 'missing' });
    expect(credentialsOf({ headers: { authorization: 'Token x' }, credentials: null })).toEqual({ kind: 'malformed' });
  });
});
