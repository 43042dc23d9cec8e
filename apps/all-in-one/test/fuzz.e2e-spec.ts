import fc from 'fast-check';
import { openApiPath, ROUTES, type HttpMethod, type RouteDefinition } from '@lms/contracts';
import {
  arbitraryOf,
  deepJson,
  fixturePath,
  hostileValue,
  HOSTILE_STRINGS,
  requestSchema,
  type FixtureContext,
  type OpenApiDocument,
  type Schema,
} from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

/**
 * Property-based fuzzing of every route of the contract table through the real gateway, on real Postgres
 * and NATS: paths, queries and bodies generated from each route's schemas (the OpenAPI document the
 * gateway serves from the same table), with hostile values mixed in at every level. Whatever is sent, the
 * answer is never ≥ 500 and every 4xx is problem+json. Seeded: FUZZ_SEED and FUZZ_RUNS reproduce a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
/** Requests in flight at once: each lane is its own seeded property over a share of the runs. */
const LANES = 6;

interface Endpoint {
  route: RouteDefinition;
  method: HttpMethod;
}

interface FuzzCase {
  endpoint: number;
  params: Record<string, string>;
  query: string;
  body?: string | Uint8Array;
  contentType?: string;
}

const endpoints: Endpoint[] = ROUTES.flatMap((route) => route.methods.map((method) => ({ route, method })));

/** Raw path segments a URL encoder would never produce: bad percent escapes, encoded NUL, dot segments. */
const RAW_SEGMENTS = ['%00', '%ff', '%E0%A4%A', '%', '..', '.', '%2e%2e', '%2F', '0', '-1', '99999999999999999999', '1.5', '1e3', 'uid:%00', 'uid:a%20b'];

/** Query strings parsers trip over. */
const RAW_QUERIES = [
  'page=99999999999999999999',
  'page=-1&per_page=0',
  'per_page=1000000',
  'page=1e3',
  '%00=1',
  'a=%ZZ',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  'constructor=1',
  'includes[]=__proto__',
  'search=%00',
  'search=%ED%A0%80',
  '&&&==&',
  'a[b][c][d][e][f][g]=1',
  `x=${'y'.repeat(4000)}`,
];

/** Bodies that are not a generated value: too deep, not JSON, not UTF-8, prototype tricks. */
const RAW_BODIES: (string | Uint8Array)[] = [
  deepJson(2_000),
  deepJson(64),
  '{"a":"\\ud800"}',
  '{"name":"a\\u0000b"}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  'null',
  '[]',
  '"text"',
  '1e400',
  '{',
  '{"a":1,"a":2}',
  new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  `{"big":[${Array.from({ length: 5_000 }, (_, i) => i).join(',')}]}`,
];

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1'];

/** encodeURIComponent, except that a lone surrogate becomes U+FFFD instead of throwing. */
function encode(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));
  }
}

function queryString(values: Record<string, unknown>): string {
  return Object.entries(values)
    .flatMap(([name, value]) => (Array.isArray(value) ? value.map((item) => `${encode(name)}[]=${encode(item)}`) : [`${encode(name)}=${encode(value)}`]))
    .join('&');
}

interface ParameterObject {
  name: string;
  in: string;
  schema?: Schema;
}

function parametersOf(ctx: FixtureContext, endpoint: Endpoint, where: 'path' | 'query'): ParameterObject[] {
  const path = openApiPath(endpoint.route.path);
  const operation = (ctx.openapi.paths[path]?.[endpoint.method.toLowerCase()] ?? {}) as { parameters?: ParameterObject[] };
  return (operation.parameters ?? []).filter((p) => p.in === where);
}

function caseArbitrary(ctx: FixtureContext, index: number, realIds: Record<string, string[]>): fc.Arbitrary<FuzzCase> {
  const endpoint = endpoints[index];
  const schemas = ctx.openapi.components.schemas;
  const pathNames = [...endpoint.route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const pathSchemas = Object.fromEntries(parametersOf(ctx, endpoint, 'path').map((p) => [p.name, p.schema]));
  const params = fc.record(
    Object.fromEntries(
      pathNames.map((name) => [
        name,
        fc.oneof(
          { weight: 6, arbitrary: realIds[`${endpoint.route.path}:${name}`]?.length ? fc.constantFrom(...realIds[`${endpoint.route.path}:${name}`]) : fc.constant('1') },
          { weight: 2, arbitrary: arbitraryOf(pathSchemas[name], schemas, 3).map(encode) },
          { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map((s) => encode(s).slice(0, 600)) },
          { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
        ),
      ]),
    ),
  ) as fc.Arbitrary<Record<string, string>>;

  const queryParams = parametersOf(ctx, endpoint, 'query');
  const known = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, arbitraryOf(p.schema, schemas, 1)])), { requiredKeys: [] });
  const query = fc.oneof(
    { weight: 8, arbitrary: known.map((values) => queryString(values as Record<string, unknown>)) },
    { weight: 1, arbitrary: fc.tuple(known, fc.dictionary(fc.string({ maxLength: 10 }), hostileValue(), { maxKeys: 2 })).map(([a, b]) => queryString({ ...(a as object), ...b })) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERIES) },
  );

  const schema = requestSchema(ctx, endpoint.route, endpoint.method);
  const takesBody = endpoint.method !== 'GET' && endpoint.method !== 'DELETE';
  const generated = arbitraryOf(schema ?? { type: 'object' }, schemas, 1).map((value) => JSON.stringify(value) ?? 'null');
  const body: fc.Arbitrary<string | Uint8Array | undefined> = takesBody
    ? fc.oneof({ weight: 12, arbitrary: generated }, { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES) }, { weight: 1, arbitrary: fc.constant(undefined) })
    : // fetch sends no body with a GET; a DELETE may carry one.
      endpoint.method === 'GET'
      ? fc.constant(undefined)
      : fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) }, { weight: 1, arbitrary: generated });
  const contentType = fc.oneof({ weight: 12, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) });

  return fc.record({ endpoint: fc.constant(index), params, query, body, contentType });
}

describe('property-based fuzzing of every route of the contract table', () => {
  let t: TestSystem;
  let ctx: FixtureContext;
  let token: string;
  let accountId: number;
  const realIds: Record<string, string[]> = {};
  const statuses = new Map<number, number>();
  const hits = new Set<number>();

  beforeAll(async () => {
    t = await startTestSystem();
    accountId = await t.factory.accountIdOf('default');
    const openapi = (await t.api.get('/api/openapi.json')).body as OpenApiDocument;
    ctx = { admin: t.api, factory: t.factory, accountId, openapi };
    token = (await t.factory.user(accountId, ['admin', 'author', 'learner', 'support'])).token;
    // Real records for every path parameter, so generated requests reach the services' own rules.
    for (const { route } of endpoints) {
      for (let i = 0; i < 2; i++) {
        const { ids } = await fixturePath(ctx, route);
        for (const [name, id] of Object.entries(ids)) (realIds[`${route.path}:${name}`] ??= []).push(encode(id));
      }
    }
  }, 180_000);
  afterAll(() => t?.close());

  async function send(c: FuzzCase): Promise<{ status: number; contentType: string | null; text: string }> {
    const { route, method } = endpoints[c.endpoint];
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => c.params[name]);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (c.body !== undefined && c.contentType) headers['content-type'] = c.contentType;
    const res = await fetch(`${t.system.url}${path}${c.query ? `?${c.query}` : ''}`, { method, headers, body: c.body, redirect: 'manual' });
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type'), text };
  }

  it(`answers ${RUNS} generated requests with no 5xx and problem+json for every 4xx (seed ${SEED})`, async () => {
    const anyCase = fc.oneof(...endpoints.map((_, i) => caseArbitrary(ctx, i, realIds)));
    const lanes = Array.from({ length: LANES }, (_, lane) =>
      fc.assert(
        fc.asyncProperty(
          anyCase,
          async (c) => {
            let res = await send(c);
            if (res.status === 401) {
              // A generated request revoked or deleted the fuzzing user's own token: carry on with a new one.
              token = (await t.factory.user(accountId, ['admin', 'author', 'learner', 'support'])).token;
              res = await send(c);
            }
            hits.add(c.endpoint);
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            const { route, method } = endpoints[c.endpoint];
            const where = `${method} ${route.path} answered ${res.status} ${res.contentType}: ${res.text.slice(0, 300)}`;
            expect([where, res.status < 500]).toEqual([where, true]);
            if (res.status >= 400) expect([where, res.contentType]).toEqual([where, expect.stringMatching(/^application\/problem\+json/)]);
          },
        ),
        { seed: SEED + lane, numRuns: Math.ceil(RUNS / LANES), endOnFailure: false },
      ),
    );
    await Promise.all(lanes);
    process.stdout.write(`fuzz: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`);
    expect(endpoints.filter((_, i) => !hits.has(i)).map((e) => `${e.method} ${e.route.path}`)).toEqual([]);
    // Requests that never get past the gateway would prove nothing about the services: some must succeed.
    const succeeded = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
    expect(succeeded).toBeGreaterThan(RUNS * 0.05);
  }, 15 * 60_000);
});
