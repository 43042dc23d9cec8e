import { AUDIENCE_ROLES, ROUTES, type HttpMethod, type Role, type RouteDefinition } from '@lms/contracts';
import { bodyFor, fixturePath, hasFixtures, ResponseSchemas, type FixtureContext, type OpenApiDocument, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

/**
 * The BOLA/BFLA matrix: every route of the contract table × every kind of caller, with the answer the
 * route's audience and roles call for. A route added to the table is in the matrix with no test code.
 */
type Persona = 'anonymous' | 'learner' | 'author' | 'support' | 'admin' | 'stranger';
const PERSONAS: Persona[] = ['stranger', 'anonymous', 'learner', 'author', 'support', 'admin'];
const PERSONA_ROLES: Record<Exclude<Persona, 'anonymous'>, Role[]> = {
  learner: ['learner'],
  author: ['author'],
  support: ['support'],
  admin: ['admin'],
  // An administrator of another account.
  stranger: ['admin'],
};

/** 401: no token. 403: outside the audience or roles. 404: another account's record. allowed: past every check of who calls. */
type Expected = 401 | 403 | 404 | 'allowed';

/** A route's roles decide when it has any (sync: support users); else its path's audience. */
function admitted(route: RouteDefinition, roles: Role[]): boolean {
  if (route.roles?.length) return route.roles.some((role) => roles.includes(role));
  const audience = AUDIENCE_ROLES[route.audience];
  return audience === 'any' || audience.some((role) => roles.includes(role));
}

function expected(route: RouteDefinition, persona: Persona, tenantOwned: boolean): Expected {
  if (persona === 'anonymous') return 401;
  if (!admitted(route, PERSONA_ROLES[persona])) return 403;
  // A download is its creator's alone (the owning account's first administrator, none of the personas): 403 to anyone else of the account.
  if (route.audience === 'downloads' && tenantOwned && persona !== 'stranger') return 403;
  if (persona === 'stranger' && tenantOwned) return 404;
  return 'allowed';
}

/**
 * A read without what changes by itself between two reads: a lock's `expires_in` counts down, a problem's
 * `request_id` is per request, a live-updates subscription's `token` and a signed file URL's expiry and
 * signature are made from the time of the read (a second apart, they differ).
 */
const VOLATILE = new Set(['expires_in', 'request_id', 'token']);
const unchanging = (body: unknown): unknown =>
  JSON.parse(JSON.stringify(body ?? null), (key, value: unknown) =>
    VOLATILE.has(key) ? undefined : typeof value === 'string' ? value.replace(/expires=\d+&signature=[\w-]+/g, 'expires=&signature=') : value,
  );

/** Learner audiences serve a user's own records: another user's record of the same account is a 404 there too. */
const perUserRecords = (route: RouteDefinition) => route.audience === 'learner' || route.audience === 'mobile';

const cases = ROUTES.flatMap((route) =>
  route.methods.flatMap((method) =>
    PERSONAS.map((persona) => [`${method} ${route.path}${hasFixtures(route) ? '' : ' (no fixture: unknown ids)'} as ${persona}`, { route, method, persona }] as const),
  ),
);

describe('BOLA/BFLA matrix: every route of the contract table × every kind of caller', () => {
  let t: TestSystem;
  let ctx: FixtureContext;
  let responses: ResponseSchemas;
  const tokens: Partial<Record<Persona, string>> = {};

  beforeAll(async () => {
    t = await startTestSystem();
    const accountId = await t.factory.accountIdOf('default');
    const openapi = (await t.api.get('/api/openapi.json')).body as OpenApiDocument;
    const users: Partial<Record<Persona, TestUser>> = {};
    for (const persona of ['learner', 'author', 'support', 'admin'] as const) users[persona] = await t.factory.user(accountId, PERSONA_ROLES[persona]);
    users.stranger = await t.factory.user(await t.factory.account(), PERSONA_ROLES.stranger);
    for (const [persona, user] of Object.entries(users)) tokens[persona as Persona] = user.token;
    // Courses and tasks are edited by their authors: the author persona makes them, as an author's own.
    ctx = { admin: t.api, factory: t.factory, accountId, openapi, author: t.api.as(tokens.author) };
    responses = new ResponseSchemas(openapi);
  });
  afterAll(() => t?.close());

  /** An empty zip: what an upload route takes (its checks of the course come before any of the file's). */
  const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);
  // An upload route that also takes JSON (checkpoint evidence) gets its JSON body.
  const send = (persona: Persona, route: RouteDefinition, method: HttpMethod, path: string, body: unknown) =>
    route.upload && !route.upload.orJson
      ? t.api.as(tokens[persona]).request(method, path, EMPTY_ZIP, { 'content-type': route.upload.contentTypes[0] })
      : t.api.as(tokens[persona]).request(method, path, body === undefined && method !== 'GET' && method !== 'DELETE' ? {} : body);

  // With unknown ids the stranger column proves nothing about another account's records: a new route's
  // parameters need a fixture (libs/testing/src/route-fixtures.ts).
  it('has a real record for every path parameter of every route', () => {
    expect(ROUTES.filter((route) => !hasFixtures(route)).map((route) => `${route.methods.join(',')} ${route.path}`)).toEqual([]);
  });

  it.each(cases)('%s', async (_name, { route, method, persona }) => {
    // Fresh records for every case: an allowed DELETE must not take the next case's record.
    const { path, ids, tenantOwned } = await fixturePath(ctx, route);
    const want = expected(route, persona, tenantOwned);
    const body = want === 401 || want === 403 ? undefined : await bodyFor(ctx, route, method, ids);
    const readBack = route.methods.includes('GET') || ROUTES.some((r) => r.path === route.path && r.methods.includes('GET'));
    const before = want === 404 && readBack ? await t.api.get(path) : undefined;

    const res = await send(persona, route, method, path, body);
    const label = `${method} ${path} as ${persona} answered ${res.status}: ${res.text.slice(0, 300)}`;
    expect([label, res.status < 500]).toEqual([label, true]);
    if (res.status >= 400) expect([label, res.headers.get('content-type')]).toEqual([label, expect.stringMatching(/^application\/problem\+json/)]);
    if (want === 'allowed') {
      expect([label, [401, 403].includes(res.status)]).toEqual([label, false]);
      // What a client generated from /api/openapi.json expects is what it gets.
      if (res.status < 300 && res.headers.get('content-type')?.startsWith('application/json')) expect([label, responses.problem(route, method, res.status, res.body)]).toEqual([label, undefined]);
      // The owner's own record is found (so the stranger's 404 below means "not yours", not "no such id");
      // in the learner audiences the records are per user, so there a 404 can be the right answer.
      if (tenantOwned && persona !== 'stranger' && !perUserRecords(route)) expect([label, res.status]).not.toEqual([label, 404]);
    } else {
      expect([label, res.status]).toEqual([label, want]);
    }
    if (before) {
      // Another account's administrator changed nothing: the owner reads the record as before.
      const after = await t.api.get(path);
      expect([path, after.status, unchanging(after.body)]).toEqual([path, before.status, unchanging(before.body)]);
    }
  });
});
