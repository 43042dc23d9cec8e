import { admits, audienceOf } from './audience.js';

describe('admits', () => {
  it('lets only administrators into the admin audience', () => {
    expect(admits({ audience: 'admin' }, ['admin'])).toBe(true);
    expect(admits({ audience: 'admin' }, ['author', 'learner'])).toBe(false);
  });

  it('lets authors and administrators into the author audience', () => {
    expect(admits({ audience: 'author' }, ['author'])).toBe(true);
    expect(admits({ audience: 'author' }, ['admin'])).toBe(true);
    expect(admits({ audience: 'author' }, ['learner'])).toBe(false);
  });

  it('lets any user into learner, mobile and downloads', () => {
    for (const audience of ['learner', 'mobile', 'downloads'] as const) expect(admits({ audience }, [])).toBe(true);
  });

  it('also needs one of the route’s extra roles', () => {
    expect(admits({ audience: 'author', roles: ['support'] }, ['author'])).toBe(false);
    expect(admits({ audience: 'author', roles: ['support'] }, ['author', 'support'])).toBe(true);
  });
});

describe('audienceOf', () => {
  it('names the audience, and the route’s extra roles when it has any', () => {
    expect(audienceOf({ audience: 'author' })).toBe('the author audience');
    expect(audienceOf({ audience: 'author', roles: [] })).toBe('the author audience');
    expect(audienceOf({ audience: 'author', roles: ['support', 'admin'] })).toBe('the author audience with role support or admin');
  });
});
