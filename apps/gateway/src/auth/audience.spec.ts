import { ROUTES } from '@lms/contracts';
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

  it('lets the route’s roles decide when it has any, whatever the audience', () => {
    expect(admits({ audience: 'author', roles: ['support'] }, ['author'])).toBe(false);
    expect(admits({ audience: 'author', roles: ['support'] }, ['admin'])).toBe(false);
    expect(admits({ audience: 'author', roles: ['support'] }, ['support'])).toBe(true);
    expect(admits({ audience: 'author', roles: ['support'] }, ['author', 'support'])).toBe(true);
    expect(admits({ audience: 'downloads', roles: ['admin', 'author'] }, ['learner'])).toBe(false);
    expect(admits({ audience: 'author', roles: [] }, ['learner'])).toBe(false);
  });
});

describe('audienceOf', () => {
  it('names the route’s roles when it has any, else the audience', () => {
    expect(audienceOf({ audience: 'author' })).toBe('the author audience');
    expect(audienceOf({ audience: 'author', roles: [] })).toBe('the author audience');
    expect(audienceOf({ audience: 'author', roles: ['support', 'admin'] })).toBe('role support or admin');
  });
});

describe('the route table', () => {
  it('gives roles to no administrators’ route: roles replace the audience, and would let others in there', () => {
    expect(ROUTES.filter((route) => route.audience === 'admin' && route.roles?.length).map((route) => route.path)).toEqual([]);
  });
});
