import type { Principal } from '@lms/contracts';
import { PrincipalCache } from './principal-cache.js';

const principal = (userId: number, accountId = 1): Principal => ({ accountId, subAccountId: null, userId, roles: ['author'] });

describe('PrincipalCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1000;
  });

  it('answers a cached principal until its TTL runs out', () => {
    const cache = new PrincipalCache(100, 10, clock);
    cache.set('h', principal(1), cache.generation);
    now += 99;
    expect(cache.get('h')).toEqual(principal(1));
    now += 1;
    expect(cache.get('h')).toBeUndefined();
  });

  it('drops a principal when its token expires, before the TTL runs out', () => {
    const cache = new PrincipalCache(100_000, 10, clock);
    cache.set('h', { ...principal(1), tokenExpiresAt: new Date(now + 50).toISOString() }, cache.generation);
    now += 49;
    expect(cache.get('h')).toBeDefined();
    now += 1;
    expect(cache.get('h')).toBeUndefined();
  });

  it('caches nothing with a TTL of 0', () => {
    const cache = new PrincipalCache(0, 10, clock);
    cache.set('h', principal(1), cache.generation);
    expect(cache.get('h')).toBeUndefined();
  });

  it('does not cache a lookup that began before an invalidation', () => {
    const cache = new PrincipalCache(100, 10, clock);
    const generation = cache.generation;
    cache.invalidate({ tokenHashes: ['other'] });
    cache.set('h', principal(1), generation);
    expect(cache.get('h')).toBeUndefined();
  });

  it('drops entries by token hash, by user, by account, or all', () => {
    const cache = new PrincipalCache(100, 10, clock);
    const fill = () => {
      for (const [hash, p] of [['a', principal(1, 1)], ['b', principal(2, 1)], ['c', principal(3, 2)]] as const) cache.set(hash, p, cache.generation);
    };
    fill();
    expect(cache.invalidate({ tokenHashes: ['a'] })).toBe(1);
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, principal(2, 1)]);
    fill();
    expect(cache.invalidate({ userId: 3 })).toBe(1);
    expect(cache.get('c')).toBeUndefined();
    fill();
    expect(cache.invalidate({ accountId: 1 })).toBe(2);
    expect(cache.get('c')).toEqual(principal(3, 2));
    fill();
    expect(cache.invalidate({ userId: 2, accountId: 2 })).toBe(0);
    expect(cache.invalidate({ all: true })).toBe(3);
    expect(cache.size).toBe(0);
  });

  it('evicts the oldest entry when full', () => {
    const cache = new PrincipalCache(100, 2, clock);
    cache.set('a', principal(1), cache.generation);
    cache.set('b', principal(2), cache.generation);
    cache.set('c', principal(3), cache.generation);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, principal(2), principal(3)]);
  });
});
