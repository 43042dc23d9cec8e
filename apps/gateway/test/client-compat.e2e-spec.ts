import { openApiPath, ROUTES, type Principal, type RouteDefinition, type RpcReply, type RpcRequest } from '@lms/contracts';
import { createLogger, InProcessBus, loadConfig, NatsBus, type MessageBus, type Runtime } from '@lms/platform';
import { testNatsUrl, uniqueName } from '@lms/testing';
import { start, type Gateway } from '../src/main.js';

/**
 * Every route of the real table that takes a body, called as the original service's clients call it:
 * raw fetch, the token under the Basic scheme, the body as JSON, as bracketed query parameters (indexed
 * and appended lists) and as a form. The gateway must forward the very same body each way, or refuse
 * each way with the very same errors. Sample bodies come from the served OpenAPI document, so a route
 * added to the table is covered the day it lands. Services here are recorders on the real bus.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

const TOKEN = 'compat-token';
const PRINCIPAL: Principal = { accountId: 21, subAccountId: null, userId: 301, roles: ['admin', 'author', 'learner', 'support'] };
const BASIC = `Basic ${Buffer.from(`script:${TOKEN}`).toString('base64')}`;

/** Bracketed `[key, value]` pairs for a JSON value, the way Rack-era clients write them. */
export function bracketPairs(value: Json, lists: 'indexed' | 'appended', prefix = ''): [string, string][] {
  if (value === null) throw new Error(`${prefix}: null has no query-string form`);
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => bracketPairs(item, lists, lists === 'appended' ? `${prefix}[]` : `${prefix}[${i}]`));
  }
  if (typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => bracketPairs(item, lists, prefix ? `${prefix}[${key}]` : key));
  return [[prefix, String(value)]];
}

const encode = (pairs: [string, string][]) => new URLSearchParams(pairs).toString();

/** A value the schema accepts, with every typed optional field filled in too, so conversions are exercised. */
function sampleOf(schema: Schema | undefined, schemas: Record<string, Schema>, name: string, required: boolean): Json | undefined {
  if (!schema) return required ? '7' : undefined;
  if (typeof schema.$ref === 'string') return sampleOf(schemas[schema.$ref.split('/').at(-1) as string], schemas, name, required);
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : (schema.type as string | undefined);
  const props = schema.properties as Record<string, Schema> | undefined;
  if (type === 'object' || props) {
    const requiredNames = (schema.required as string[] | undefined) ?? [];
    // Exactly one of several fields (`oneOf` of required sets): the first alternative's, not the others'.
    const alternatives = (schema.oneOf as Schema[] | undefined) ?? [];
    const excluded = new Set(alternatives.slice(1).flatMap((alternative) => (alternative.required as string[] | undefined) ?? []));
    const out: Record<string, Json> = {};
    for (const [key, prop] of Object.entries(props ?? {}).filter(([key]) => !excluded.has(key))) {
      const value = sampleOf(prop, schemas, key, requiredNames.includes(key));
      if (value !== undefined) out[key] = value;
    }
    const extra = schema.additionalProperties as Schema | undefined;
    if (Object.keys(out).length === 0 && extra && typeof extra === 'object') {
      const value = sampleOf(extra, schemas, 'value', true);
      if (value !== undefined) out.email = value;
    }
    // An empty object has no query-string form: leave it out (a required one would show in the JSON check).
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (type === 'array') {
    const count = Math.max(typeof schema.minItems === 'number' ? schema.minItems : 1, 1);
    const item = sampleOf(schema.items as Schema | undefined, schemas, name, true);
    if (item === undefined) return undefined;
    // Alternate booleans so a list of them is not all one value; other lists repeat their sample.
    return Array.from({ length: schema.uniqueItems ? 1 : count }, (_, i) => (typeof item === 'boolean' ? i % 2 === 0 : item));
  }
  if (type === 'integer') {
    const low = Math.max(typeof schema.minimum === 'number' ? schema.minimum : 1, 1) + 1;
    return typeof schema.maximum === 'number' ? Math.min(low, schema.maximum) : low;
  }
  if (type === 'number') {
    const low = typeof schema.minimum === 'number' ? schema.minimum : 0;
    return typeof schema.maximum === 'number' ? (low + schema.maximum) / 2 : low + 2.5;
  }
  if (type === 'boolean') return true;
  if (type === 'string') {
    if (schema.format === 'email') return 'script@example.test';
    if (schema.format === 'url' || schema.format === 'uri') return 'https://example.test/a';
    if (schema.format === 'date') return '2026-12-01';
    if (schema.format === 'date-time') return '2026-12-01T09:30:00Z';
    // Names say what the validators behind a plain string want: a timestamp, a date, an id.
    if (name.endsWith('_at')) return '2099-12-01T09:30:00Z';
    if (name.endsWith('_date') || name.endsWith('_on')) return '2026-12-01';
    const candidates = name === 'id' || name.endsWith('_id') ? ['7', 'x'] : ['Onboarding', '7', '09:30', 'x'];
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
    const fit = candidates.find((c) => !pattern || pattern.test(c));
    return fit ?? (required ? 'x' : undefined);
  }
  // A field no schema types (a custom validator): only when required, as text (numeric text names an id).
  return required ? '7' : undefined;
}

/** Every way one value of a typed field can be written wrong, to compare the refusals. */
function withWrongType(value: Json, schema: Schema, schemas: Record<string, Schema>): Json | undefined {
  if (typeof schema.$ref === 'string') return withWrongType(value, schemas[schema.$ref.split('/').at(-1) as string], schemas);
  if (value === null || typeof value !== 'object') {
    const type = schema.type;
    return type === 'integer' || type === 'number' || type === 'boolean' ? 'not-a-value' : undefined;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    const sub = Array.isArray(value) ? (schema.items as Schema) : (schema.properties as Record<string, Schema> | undefined)?.[key] ?? (schema.additionalProperties as Schema);
    if (!sub || typeof sub !== 'object') continue;
    const wrong = withWrongType(item, sub, schemas);
    if (wrong === undefined) continue;
    if (Array.isArray(value)) return value.map((v, i) => (String(i) === key ? wrong : v));
    return { ...value, [key]: wrong };
  }
  return undefined;
}

interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
  forwarded: unknown;
}

describe('every body route, as the original service’s clients send bodies (gateway, real bus)', () => {
  const namespace = uniqueName('compat');
  const natsUrl = testNatsUrl();
  let serviceBus: MessageBus;
  let gatewayBus: MessageBus;
  let gateway: Gateway;
  let document: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };
  const forwarded = new Map<string, unknown>();

  const runtime = (bus: MessageBus): Runtime => ({
    config: { ...loadConfig({}), port: 0, host: '127.0.0.1', rpcTimeoutMs: 5000, authCacheTtlMs: 60_000 },
    databaseUrl: '',
    bus,
    logger: createLogger('silent'),
  });

  beforeAll(async () => {
    if (natsUrl) {
      serviceBus = await NatsBus.connect(natsUrl, { namespace, name: 'compat-e2e-services' });
      gatewayBus = await NatsBus.connect(natsUrl, { namespace, name: 'compat-e2e-gateway' });
    } else {
      const bus = new InProcessBus({ namespace });
      serviceBus = bus;
      gatewayBus = bus.retain();
    }
    serviceBus.serve('identity.auth.resolve', 'identity', async (payload) => {
      const { token } = (payload as RpcRequest<{ token: string }>).body;
      return token === TOKEN ? { ok: true, body: PRINCIPAL } : { ok: false, error: { status: 401, code: 'INVALID_TOKEN', title: 'Unauthorized' } };
    });
    for (const subject of new Set(ROUTES.filter((r) => r.body).map((r) => r.subject))) {
      serviceBus.serve(subject, 'recorder', async (payload) => {
        const request = payload as RpcRequest;
        forwarded.set(request.ctx.requestId, request.body);
        return { ok: true, status: 204, headers: { location: '/recorded' } } satisfies RpcReply;
      });
    }
    await serviceBus.ping();
    gateway = await start(runtime(gatewayBus));
    document = (await (await fetch(`${gateway.url}/api/openapi.json`)).json()) as typeof document;
  });

  afterAll(async () => {
    await gateway?.close();
    await gatewayBus?.close();
    await serviceBus?.close();
  });

  let sequence = 0;
  async function call(method: string, path: string, body: string | undefined, contentType: string | undefined): Promise<Answer> {
    const requestId = `compat-${++sequence}`;
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      redirect: 'manual',
      headers: { authorization: BASIC, accept: 'application/json', 'x-request-id': requestId, ...(contentType ? { 'content-type': contentType } : {}) },
      body,
    });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Record<string, unknown>) : undefined, forwarded: forwarded.get(requestId) };
  }

  const bodyRoutes = ROUTES.filter((route) => route.body).flatMap((route) => route.methods.map((method) => [`${method} ${route.path}`, route, method] as const));

  /** The path with its parameters filled as the params schema types them. */
  const pathOf = (route: RouteDefinition, method: string): string => {
    const operation = document.paths[openApiPath(route.path)][method.toLowerCase()];
    const params = (operation.parameters as Schema[]).filter((p) => p.in === 'path');
    return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
      encodeURIComponent(String(sampleOf(params.find((p) => p.name === name)?.schema as Schema | undefined, document.components.schemas, name, true))),
    );
  };

  const bodySchemaOf = (route: RouteDefinition, method: string): Schema => {
    const operation = document.paths[openApiPath(route.path)][method.toLowerCase()];
    const content = (operation.requestBody as { content: Record<string, { schema: Schema }> }).content;
    expect(Object.keys(content)).toEqual(['application/json', 'application/x-www-form-urlencoded', ...(route.upload?.contentTypes ?? [])]);
    return content['application/json'].schema;
  };

  it('has body routes to check', () => {
    expect(bodyRoutes.length).toBeGreaterThan(5);
  });

  it.each(bodyRoutes)('%s: the same body from JSON, bracketed query parameters and a form', async (_name, route, method) => {
    const schema = bodySchemaOf(route, method);
    const sample = sampleOf(schema, document.components.schemas, 'body', true) as Json;
    const path = pathOf(route, method);

    const json = await call(method, path, JSON.stringify(sample), 'application/json');
    // The generated sample must satisfy the DTO, or the comparison below proves little.
    expect({ status: json.status, errors: json.body?.errors }).toEqual({ status: 204, errors: undefined });
    expect(json.forwarded).toBeDefined();

    for (const lists of ['indexed', 'appended'] as const) {
      const query = await call(method, `${path}?${encode(bracketPairs(sample, lists))}`, '', 'application/json');
      expect({ lists, status: query.status, forwarded: query.forwarded }).toEqual({ lists, status: 204, forwarded: json.forwarded });
      const bare = await call(method, `${path}?${encode(bracketPairs(sample, lists))}`, undefined, undefined);
      expect({ lists, status: bare.status, forwarded: bare.forwarded }).toEqual({ lists, status: 204, forwarded: json.forwarded });
    }
    const form = await call(method, path, encode(bracketPairs(sample, 'indexed')), 'application/x-www-form-urlencoded');
    expect({ status: form.status, forwarded: form.forwarded }).toEqual({ status: 204, forwarded: json.forwarded });

    // Each top-level field once in the query string, the others in the JSON body: the same body arrives.
    for (const key of Object.keys(sample as Record<string, Json>)) {
      const { [key]: inQuery, ...inBody } = sample as Record<string, Json>;
      const split = await call(method, `${path}?${encode(bracketPairs({ [key]: inQuery }, 'indexed'))}`, JSON.stringify(inBody), 'application/json');
      expect({ key, status: split.status, forwarded: split.forwarded }).toEqual({ key, status: 204, forwarded: json.forwarded });
    }
  });

  it.each(bodyRoutes)('%s: a wrongly typed field is judged the same way from each encoding', async (_name, route, method) => {
    const schema = bodySchemaOf(route, method);
    const sample = sampleOf(schema, document.components.schemas, 'body', true) as Json;
    const wrong = withWrongType(sample, schema, document.components.schemas);
    // Routes whose body has no integer, number or boolean field have nothing to mistype.
    if (wrong === undefined) return;
    const path = pathOf(route, method);
    const json = await call(method, path, JSON.stringify(wrong), 'application/json');
    // Mostly a 400 (a 422 where the route's table says so); a field only the service checks (notification
    // channels) passes the gateway as text either way.
    expect([route.invalidStatus ?? 400, 204]).toContain(json.status);
    const query = await call(method, `${path}?${encode(bracketPairs(wrong, 'indexed'))}`, undefined, undefined);
    const form = await call(method, path, encode(bracketPairs(wrong, 'indexed')), 'application/x-www-form-urlencoded');
    for (const answer of [query, form]) {
      expect({ status: answer.status, code: answer.body?.code, errors: answer.body?.errors, forwarded: answer.forwarded }).toEqual({
        status: json.status,
        code: json.body?.code,
        errors: json.body?.errors,
        forwarded: json.forwarded,
      });
    }
  });
});
