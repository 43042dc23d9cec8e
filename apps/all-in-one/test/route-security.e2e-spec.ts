import { AUDIENCE_ROLES, ROUTES, type Role } from '@lms/contracts';
import type { TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

/** Every route of the contract table, each method: a path with its parameters filled in. */
const endpoints = ROUTES.flatMap((route) =>
  route.methods.map((method) => ({ method, path: route.path.replace(/:[a-z_]+/g, '1'), route })),
);

describe('authentication and audiences on every route of the contract table', () => {
  let t: TestSystem;
  const users: Partial<Record<Role, TestUser>> = {};

  beforeAll(async () => {
    t = await startTestSystem();
    const accountId = await t.factory.accountIdOf('default');
    for (const role of ['learner', 'author'] as const) users[role] = await t.factory.user(accountId, [role]);
  });
  afterAll(() => t?.close());

  it.each(endpoints.map((e) => [`${e.method} ${e.route.path}`, e] as const))('%s: 401 without a token, 401 with a bad one', async (_name, { method, path }) => {
    for (const token of [undefined, 'lms_not-a-real-token']) {
      const res = await t.api.as(token).request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  const restricted = endpoints.filter((e) => AUDIENCE_ROLES[e.route.audience] !== 'any');
  it.each(restricted.map((e) => [`${e.method} ${e.route.path}`, e] as const))('%s: 403 to a role outside its audience', async (_name, { method, path, route }) => {
    const admitted = AUDIENCE_ROLES[route.audience] as readonly Role[];
    for (const role of (['learner', 'author'] as const).filter((r) => !admitted.includes(r))) {
      const res = await t.api.as(users[role]!.token).request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.status).toBe(403);
    }
  });
});
