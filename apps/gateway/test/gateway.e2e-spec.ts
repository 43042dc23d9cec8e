import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { ROUTES, type Principal, type RpcReply, type RpcRequest } from '@lms/contracts';
import { pino } from 'pino';
import { CONTEXT_REFUSED, contextSealFor, createLogger, InProcessBus, loadConfig, NatsBus, type HealthIndicator, type MessageBus, type PlatformConfig, type Runtime } from '@lms/platform';
import { ApiClient, eventually, testNatsUrl, uniqueName, type ApiResponse } from '@lms/testing';
import { start, type Gateway } from '../src/main.js';
import { WIDGET_ROUTES, WIDGET_SUBJECTS as S } from './widget-routes.js';

/**
 * The gateway over real HTTP and a real bus (NATS when TEST_NATS_URL is set), in front of test services
 * served on that bus: an identity responder for tokens and one handler per test route.
 */

const PRINCIPALS: Record<string, Principal> = {
  'author-token': { accountId: 11, subAccountId: 5, userId: 101, roles: ['author'] },
  'admin-token': { accountId: 11, subAccountId: null, userId: 102, roles: ['admin'] },
  'learner-token': { accountId: 11, subAccountId: null, userId: 103, roles: ['learner'] },
  'support-token': { accountId: 11, subAccountId: null, userId: 104, roles: ['author', 'support'] },
  'revocable-token': { accountId: 12, subAccountId: null, userId: 201, roles: ['author'] },
  'leaver-token': { accountId: 12, subAccountId: null, userId: 202, roles: ['author'] },
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('gateway (e2e)', () => {
  const namespace = uniqueName('gw');
  const natsUrl = testNatsUrl();
  let serviceBus: MessageBus;
  let gatewayBus: MessageBus;
  let gateway: Gateway;
  let hasty: Gateway;
  let api: ApiClient;

  const calls: Record<string, RpcRequest[]> = {};
  const lookups = new Map<string, number>();
  const masqueradeLookups: RpcRequest['ctx'][] = [];
  const revoked = new Set<string>();
  let readinessDown = false;
  // Held replies: released at the end so no handler outlives the suite.
  const held = deferred();
  const slowArrivals: Deferred[] = [];
  // A create of a widget named 'waits' is answered once the gate opens.
  const createArrived = deferred();
  const createGate = deferred();

  // The main gateway logs into this list, so the request log can be checked.
  const logLines: Record<string, unknown>[] = [];
  const logSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });

  const runtime = (bus: MessageBus, config: Partial<PlatformConfig> = {}, logger = createLogger('silent')): Runtime => ({
    config: { ...loadConfig({}), port: 0, host: '127.0.0.1', rpcTimeoutMs: 5000, authCacheTtlMs: 60_000, ...config },
    databaseUrl: '',
    bus,
    logger,
  });

  const serve = (subject: string, handler: (req: RpcRequest) => Promise<RpcReply> | RpcReply) =>
    serviceBus.serve(subject, 'test', async (payload) => {
      const req = payload as RpcRequest;
      (calls[subject] ??= []).push(req);
      return handler(req);
    });

  const widget = (id: unknown, name = `widget ${String(id)}`) => ({ id: String(id), name });

  beforeAll(async () => {
    if (natsUrl) {
      serviceBus = await NatsBus.connect(natsUrl, { namespace, name: 'gateway-e2e-services' });
      gatewayBus = await NatsBus.connect(natsUrl, { namespace, name: 'gateway-e2e-gateway' });
    } else {
      const bus = new InProcessBus({ namespace });
      serviceBus = bus;
      gatewayBus = bus.retain();
    }

    serviceBus.serve('identity.auth.resolve', 'identity', async (payload) => {
      const { token } = (payload as RpcRequest<{ token: string }>).body;
      lookups.set(token, (lookups.get(token) ?? 0) + 1);
      // A service configured with another CONTEXT_SIGNING_KEY refuses every request the gateway signs.
      if (token === 'other-key-token') return { ok: false, error: { status: 401, code: CONTEXT_REFUSED, title: 'Unauthorized' } } satisfies RpcReply;
      const principal = PRINCIPALS[token];
      if (!principal || revoked.has(token)) return { ok: false, error: { status: 401, code: 'INVALID_TOKEN', title: 'Unauthorized' } } satisfies RpcReply;
      return { ok: true, body: principal } satisfies RpcReply;
    });
    // Identity's masquerade rule, for this table's people: an administrator, as another user of the same account.
    serviceBus.serve('identity.auth.masquerade', 'identity', async (payload) => {
      const { ctx, body } = payload as RpcRequest<{ user: string }>;
      masqueradeLookups.push(ctx);
      const ref = body.user === 'uid:author-uid' ? '101' : body.user;
      const target = Object.values(PRINCIPALS).find((p) => String(p.userId) === ref && p.accountId === ctx.accountId);
      if (!ctx.roles.includes('admin')) return { ok: false, error: { status: 403, code: 'MASQUERADE_FORBIDDEN', title: 'Forbidden' } } satisfies RpcReply;
      if (!target) return { ok: false, error: { status: 404, code: 'USER_NOT_FOUND', title: 'Not Found' } } satisfies RpcReply;
      if (target.userId === ctx.userId) return { ok: false, error: { status: 403, code: 'MASQUERADE_FORBIDDEN', title: 'Forbidden' } } satisfies RpcReply;
      return { ok: true, body: target } satisfies RpcReply;
    });
    serve(S.list, () => ({ ok: true, body: { meta: {}, widgets: [widget(1), widget(2)] }, total: 35 }));
    serve(S.show, (req) =>
      (req.params as Record<string, unknown>).id === 404
        ? { ok: false, error: { status: 404, code: 'WIDGET_NOT_FOUND', title: 'Not Found', detail: 'There is no widget 404.' } }
        : { ok: true, body: { meta: {}, widgets: [widget(req.params.id)] } },
    );
    serve(S.create, async (req) => {
      const created = (req.body as { widget: { name?: string } }).widget;
      if (created.name === 'waits') {
        createArrived.resolve();
        await createGate.promise;
      }
      return { ok: true, body: { meta: {}, widgets: [{ id: '9', ...created }] } };
    });
    serve(S.update, (req) => ({ ok: true, body: { meta: {}, widgets: [{ id: String(req.params.id), ...(req.body as { widget: object }).widget }] } }));
    serve(S.delete, () => ({ ok: true, status: 204 }));
    serve(S.sync, (req) => ({ ok: true, body: { widget: widget(req.params.id) } }));
    serve(S.secrets, () => ({ ok: true, body: { secret: 'for admins' } }));
    serve(S.slow, async () => {
      slowArrivals.shift()?.resolve();
      await held.promise;
      return { ok: true, body: { late: true } };
    });
    serve(S.broken, () => ({ ok: false, error: { status: 500, code: 'DB_EXPLODED', title: 'Boom', detail: 'password=hunter2 at db.internal:5432' } }));
    serve(S.crashing, () => {
      throw new Error('TypeError in widget.repository.ts:42 with password=hunter2');
    });
    serve(S.conflict, () => ({ ok: false, error: { status: 409, code: 'LOCK_HELD', title: 'Conflict', detail: 'Locked by user 7.' } }));
    serve(S.file, () => ({ ok: true, headers: { Location: 'https://files.example/signed?sig=abc' } }));
    serve(S.export, () => ({ ok: true, body: 'id,name\n1,a\n', headers: { 'content-disposition': 'attachment; filename="widgets.csv"' } }));
    // Every subscription is known to the server before the first request.
    await serviceBus.ping();

    const switchable: HealthIndicator = {
      name: 'switchable',
      check: async () => {
        if (readinessDown) throw new Error('switched off');
      },
    };
    gateway = await start(runtime(gatewayBus, {}, pino({ level: 'info' }, logSink)), WIDGET_ROUTES, { indicators: [switchable] });
    hasty = await start(runtime(gatewayBus, { rpcTimeoutMs: 100 }), WIDGET_ROUTES);
    api = new ApiClient(gateway.url, 'author-token');
  });

  afterAll(async () => {
    held.resolve();
    await Promise.all([gateway?.close(), hasty?.close()]);
    await gatewayBus?.close();
    await serviceBus?.close();
  });

  function expectProblem(res: ApiResponse, status: number, code: string): void {
    expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status, code, title: expect.any(String), type: expect.stringMatching(/^(https:\/\/learning-service\.dev\/problems\/[a-z0-9-]+|about:blank)$/) });
    expect(res.body.request_id).toEqual(res.headers.get('x-request-id'));
    expect(res.body.request_id).toEqual(expect.any(String));
  }

  describe('authentication and audience', () => {
    it('answers 401 with a Bearer challenge without a token', async () => {
      const res = await api.as(undefined).get('/api/author/widgets');
      expectProblem(res, 401, 'UNAUTHENTICATED');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    });

    it('answers 401 for a malformed header and for an unknown token', async () => {
      const malformed = await api.request('GET', '/api/author/widgets', undefined, { authorization: 'Digest username="u"' });
      expectProblem(malformed, 401, 'UNAUTHENTICATED');
      expect(malformed.headers.get('www-authenticate')).toContain('invalid_request');
      const unknown = await api.as('no-such-token').get('/api/author/widgets');
      expectProblem(unknown, 401, 'UNAUTHENTICATED');
      expect(unknown.headers.get('www-authenticate')).toContain('invalid_token');
    });

    it('takes the token under the Basic scheme, raw or as the password of Basic credentials', async () => {
      const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
      for (const authorization of ['Basic author-token', basic('anyone:author-token'), basic('author-token:')]) {
        const res = await api.as(undefined).request('GET', '/api/author/widgets/5', undefined, { authorization });
        expect([authorization, res.status]).toEqual([authorization, 200]);
        expect(calls[S.show].at(-1)?.ctx).toMatchObject({ accountId: 11, userId: 101, roles: ['author'] });
      }
      const unknown = await api.as(undefined).request('GET', '/api/author/widgets/5', undefined, { authorization: basic('anyone:no-such-token') });
      expectProblem(unknown, 401, 'UNAUTHENTICATED');
      expect(unknown.headers.get('www-authenticate')).toContain('invalid_token');
    });

    it('does not cache a failed lookup', async () => {
      await api.as('unknown-twice').get('/api/author/widgets');
      await api.as('unknown-twice').get('/api/author/widgets');
      expect(lookups.get('unknown-twice')).toBe(2);
    });

    it('answers 403 to a caller outside the audience, before reading the body or calling the service', async () => {
      const before = calls[S.secrets]?.length ?? 0;
      expectProblem(await api.get('/api/admin/secrets'), 403, 'FORBIDDEN');
      expectProblem(await api.as('learner-token').post('/api/author/widgets', { widget: { name: 'x' } }), 403, 'FORBIDDEN');
      expect(calls[S.secrets]?.length ?? 0).toBe(before);
      expect((await api.as('admin-token').get('/api/admin/secrets')).status).toBe(200);
    });

    it('needs the route’s extra roles too', async () => {
      expectProblem(await api.post('/api/author/widgets/3/sync'), 403, 'FORBIDDEN');
      const res = await api.as('support-token').post('/api/author/widgets/3/sync');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ widget: widget(3) });
    });

    it('serves the API description without a token', async () => {
      const res = await api.as(undefined).get('/api/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(Object.keys(res.body.paths)).toContain('/api/author/widgets/{id}');
      const docs = await fetch(`${gateway.url}/api/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('/api/docs/swagger-ui-bundle.js');
      const bundle = await fetch(`${gateway.url}/api/docs/swagger-ui-bundle.js`);
      expect([bundle.status, bundle.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
      expect((await bundle.text()).length).toBeGreaterThan(1000);
      expectProblem(await api.as(undefined).get('/api/docs/package.json'), 404, 'ROUTE_NOT_FOUND');
    });
  });

  describe('forwarding', () => {
    it('sends the caller’s context and the validated, typed input to the service', async () => {
      const res = await api.request('GET', '/api/author/widgets?sort=-name&includes[]=counts&includes[]=owner&min_size=3&page=2&per_page=10', undefined, {
        'x-request-id': 'trace-abc-123',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBe('trace-abc-123');
      expect(res.body).toEqual({ meta: {}, widgets: [widget(1), widget(2)] });
      expect(calls[S.list].at(-1)).toEqual({
        ctx: { requestId: 'trace-abc-123', accountId: 11, subAccountId: 5, userId: 101, roles: ['author'] },
        params: {},
        query: { sort: '-name', includes: ['counts', 'owner'], min_size: 3, page: 2, per_page: 10 },
        // Sealed when it leaves the process (two NATS connections here); the in-process bus carries it as it is.
        ...(natsUrl ? { seal: { v: 1, at: expect.any(Number), mac: expect.any(String) } } : {}),
      });
    });

    it('signs the context of every request that leaves the process, for its subject, so a service can verify it (docs/security.md)', async () => {
      await api.get('/api/author/widgets/5');
      if (!natsUrl) {
        expect(calls[S.show].at(-1)).not.toHaveProperty('seal');
        return;
      }
      // The gateway runs on this process's generated key (no NATS_URL in its configuration).
      const seal = contextSealFor(loadConfig({}));
      expect(seal.check(S.show, calls[S.show].at(-1))).toBeUndefined();
      expect(seal.check(S.list, calls[S.show].at(-1))).toBe('mismatch');
      expect(seal.check('identity.auth.resolve', calls[S.show].at(-1))).toBe('mismatch');
    });

    it('answers 500, not 401, when a service refuses the gateway’s own signature (a key mismatch is the deployment’s fault)', async () => {
      const res = await api.as('other-key-token').get('/api/author/widgets');
      expectProblem(res, 500, 'INTERNAL_ERROR');
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect(logLines.some((line) => String((line.err as { message?: string } | undefined)?.message).includes('CONTEXT_SIGNING_KEY differs'))).toBe(true);
    });

    it('makes a request id when the caller’s is missing or unsafe', async () => {
      const res = await api.request('GET', '/api/author/widgets/5', undefined, { 'x-request-id': 'bad id\twith spaces' });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(calls[S.show].at(-1)?.ctx.requestId).toBe(res.headers.get('x-request-id'));
    });

    it('answers the route’s status, or the service’s, with no body for 204', async () => {
      const created = await api.post('/api/author/widgets', { widget: { name: 'new', size: 2 } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ meta: {}, widgets: [{ id: '9', name: 'new', size: 2 }] });
      expect(calls[S.create].at(-1)?.body).toEqual({ widget: { name: 'new', size: 2 } });
      const deleted = await api.delete('/api/author/widgets/9');
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      // Clients often label an empty DELETE as JSON: no body, not malformed JSON.
      expect((await api.delete('/api/author/widgets/9', { 'content-type': 'application/json' })).status).toBe(204);
    });

    it('accepts PATCH and PUT alike', async () => {
      for (const method of ['PATCH', 'PUT']) {
        const res = await api.request(method, '/api/author/widgets/4', { widget: { name: method } });
        expect(res.status).toBe(200);
        expect(res.body.widgets).toEqual([{ id: '4', name: method }]);
      }
    });

    it('takes a path with a trailing slash as the path without it', async () => {
      const list = await api.get('/api/author/widgets/?per_page=2');
      expect([list.status, list.body.widgets?.length]).toEqual([200, 2]);
      const one = await api.get('/api/author/widgets/4/');
      expect([one.status, one.body.widgets]).toEqual([200, [expect.objectContaining({ id: '4' })]]);
    });

    it('takes doubled slashes as one, as the original service’s router did (a base URL ending in / joined to /api/…)', async () => {
      const list = await api.get('//api/author/widgets?per_page=2');
      expect([list.status, list.body.widgets?.length]).toEqual([200, 2]);
      // The links name the list as the router read it: a `//api` after a missing Host would name another host.
      expect(list.headers.get('link')).toContain(`<${gateway.url}/api/author/widgets?page=2&per_page=2>; rel="next"`);
      // HTTP/1.0 without Host: the links stay path-absolute, and `//api/…` would be a network-path reference.
      const hostless = await new Promise<string>((resolve, reject) => {
        const { port } = new URL(gateway.url);
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET //api/author/widgets?per_page=2 HTTP/1.0\r\nAuthorization: Bearer author-token\r\n\r\n'));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString())).on('end', () => resolve(text)).on('error', reject);
      });
      expect(hostless).toMatch(/^HTTP\/1\.1 200/);
      expect(hostless).toMatch(/\r\nlink: <\/api\/author\/widgets\?page=1&per_page=2>; rel="first"/i);
      const one = await api.get('/api/author//widgets/4');
      expect([one.status, one.body.widgets]).toEqual([200, [expect.objectContaining({ id: '4' })]]);
      expectProblem(await api.get('//api/author/widgets?extra=1'), 400, 'VALIDATION_FAILED');
      expectProblem(await api.as('learner-token').get('//api/author/widgets'), 403, 'FORBIDDEN');
    });

    it('answers a redirect with the service’s Location', async () => {
      const res = await api.get('/api/downloads/7/file');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://files.example/signed?sig=abc');
    });

    it('sends a file with its content type and headers', async () => {
      const res = await api.as('admin-token').get('/api/admin/widgets/3/export');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="widgets.csv"');
      expect(res.text).toBe('id,name\n1,a\n');
      expect(calls[S.export].at(-1)?.params).toEqual({ widget_id: 3 });
    });
  });

  describe('input validation', () => {
    it('rejects unknown body fields, at any depth, without calling the service', async () => {
      const before = calls[S.create]?.length ?? 0;
      const res = await api.post('/api/author/widgets', { widget: { name: 'x', colour: 'red' }, tags: [{ label: 'a' }, { label: 'b', admin: true }], is_admin: true });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'is_admin', message: expect.stringContaining('is_admin') },
          { field: 'widget.colour', message: expect.stringContaining('colour') },
          { field: 'tags[1].admin', message: expect.stringContaining('admin') },
        ]),
      );
      expect(calls[S.create]?.length ?? 0).toBe(before);
    });

    it('lists every invalid field of params, query and body', async () => {
      const res = await api.request('PATCH', '/api/author/widgets/abc', { widget: { name: '', size: -1 } });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['id', 'widget.name', 'widget.size']));
    });

    it('rejects a bad query: paging out of range, unknown values and parameters', async () => {
      const res = await api.get('/api/author/widgets?per_page=0&page=0&sort=colour&includes[]=everything&debug=1');
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['per_page', 'page', 'sort', 'includes', 'debug']));
      expectProblem(await api.get('/api/author/widgets/3?extra=1'), 400, 'VALIDATION_FAILED');
    });

    it('answers 400 for a missing body, invalid JSON and a non-object body', async () => {
      expectProblem(await api.request('POST', '/api/author/widgets'), 400, 'BODY_REQUIRED');
      expectProblem(await api.request('POST', '/api/author/widgets', undefined, { 'content-type': 'application/json' }), 400, 'BODY_REQUIRED');
      expectProblem(await api.request('POST', '/api/author/widgets', '{"widget": {'), 400, 'MALFORMED_REQUEST');
      expectProblem(await api.request('POST', '/api/author/widgets', '[1,2]'), 400, 'VALIDATION_FAILED');
      expectProblem(await api.request('POST', '/api/author/widgets', '{"__proto__": {"x": 1}}'), 400, 'MALFORMED_REQUEST');
    });

    it('names a prototype key of a JSON body as the reason, not "not valid JSON" (the JSON is valid)', async () => {
      const before = calls[S.create]?.length ?? 0;
      const proto = await api.request('POST', '/api/author/widgets', '{"widget": {"name": "a", "__proto__": {"x": 1}}}');
      expectProblem(proto, 400, 'MALFORMED_REQUEST');
      expect(proto.body.detail).not.toMatch(/not valid JSON/);
      expect(proto.body.errors).toEqual([{ field: 'widget.__proto__', message: 'the key "__proto__" is a reserved name, not a field' }]);
      const ctor = await api.request('POST', '/api/author/widgets', '{"constructor": {"prototype": {"x": 1}}}');
      expectProblem(ctor, 400, 'MALFORMED_REQUEST');
      expect(ctor.body.errors).toEqual([{ field: 'constructor', message: 'the key "constructor" is a reserved name, not a field' }]);
      // Broken JSON is still named as such.
      expect((await api.request('POST', '/api/author/widgets', '{"__proto__": {')).body.detail).toMatch(/not valid JSON/);
      expect(calls[S.create]?.length ?? 0).toBe(before);
    });

    it('refuses a body of 110,000 unknown keys with one short error, the service untouched (issue 11, finding 3)', async () => {
      const before = calls[S.create]?.length ?? 0;
      // Under the 1 MiB limit: short keys, as the finding's body had.
      const body = Object.fromEntries(Array.from({ length: 110_000 }, (_, i) => [i.toString(36), 0]));
      const [res, live] = await Promise.all([api.post('/api/author/widgets', body), fetch(`${gateway.url}/healthz`)]);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toEqual([{ field: 'body', message: 'has 110000 fields; at most 1000 are accepted' }]);
      expect(live.status).toBe(200);
      // Every field of a 1,000-key body is unknown: the answer still lists a bounded number of them.
      const many = await api.post('/api/author/widgets', Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 1])));
      expectProblem(many, 400, 'VALIDATION_FAILED');
      expect(many.body.errors).toHaveLength(50);
      expect(calls[S.create]?.length ?? 0).toBe(before);
    });

    it('refuses text that is not UTF-8, in a body or percent-encoded, instead of storing U+FFFD for it (as Rails answered 400)', async () => {
      const before = { create: calls[S.create]?.length ?? 0, list: calls[S.list]?.length ?? 0 };
      const latin1 = (text: string) => Buffer.from(text, 'latin1');
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      for (const [body, headers] of [
        [latin1('{"widget": {"name": "café"}}'), { 'content-type': 'application/json; charset=iso-8859-1' }],
        [latin1('{"widget": {"name": "café"}}'), {}],
        [latin1('widget[name]=café'), form],
        ['widget[name]=caf%E9', form],
      ] as const) {
        const res = await api.request('POST', '/api/author/widgets', new Uint8Array(body instanceof Buffer ? body : Buffer.from(body)), headers);
        expectProblem(res, 400, 'MALFORMED_REQUEST');
        expect(res.body.detail).toMatch(/UTF-8/);
      }
      expectProblem(await api.request('POST', '/api/author/widgets?widget[name]=caf%E9', undefined, { 'content-type': 'application/json' }), 400, 'MALFORMED_REQUEST');
      expectProblem(await api.get('/api/author/widgets?sort=caf%E9'), 400, 'MALFORMED_REQUEST');
      expect({ create: calls[S.create]?.length ?? 0, list: calls[S.list]?.length ?? 0 }).toEqual(before);
      // UTF-8 passes, U+FFFD itself included, however it is sent.
      for (const [body, headers] of [
        [Buffer.from('{"widget": {"name": "café \uFFFD"}}'), {}],
        [Buffer.from('widget[name]=café \uFFFD'), form],
        [Buffer.from('widget[name]=caf%C3%A9%20%EF%BF%BD'), form],
      ] as const) {
        const res = await api.request('POST', '/api/author/widgets', new Uint8Array(body), headers);
        expect(res.status).toBe(201);
        expect(calls[S.create].at(-1)?.body).toEqual({ widget: { name: 'café \uFFFD' } });
      }
      expect((await api.get('/api/author/widgets?sort=name&per_page=1&includes=%C3%A9')).body.errors).toEqual([{ field: 'includes', message: expect.any(String) }]);
    });

    it('answers 415 naming the coding for a compressed body, which it does not inflate', async () => {
      const before = calls[S.create]?.length ?? 0;
      const zipped = new Uint8Array(gzipSync(JSON.stringify({ widget: { name: 'zipped' } })));
      for (const headers of [{ 'content-encoding': 'gzip' }, { 'content-encoding': 'br', 'content-type': 'application/x-www-form-urlencoded' }] as Record<string, string>[]) {
        const res = await api.request('POST', '/api/author/widgets', zipped, headers);
        expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
        expect(res.body.detail).toMatch(/Content-Encoding/);
        expect(res.headers.get('accept-encoding')).toBe('identity');
      }
      expect(calls[S.create]?.length ?? 0).toBe(before);
      expect((await api.request('POST', '/api/author/widgets', { widget: { name: 'plain' } }, { 'content-encoding': 'identity' })).status).toBe(201);
    });

    it('answers 415 for a body that is neither JSON nor a form', async () => {
      expectProblem(await api.request('POST', '/api/author/widgets', '--b\r\n\r\n--b--', { 'content-type': 'multipart/form-data; boundary=b' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(await api.request('POST', '/api/author/widgets', 'hello', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 413 for a body over the limit', async () => {
      const res = await api.post('/api/author/widgets', { widget: { name: 'x'.repeat(1_100_000) } });
      expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('refuses a body on a route that takes none', async () => {
      const res = await api.post('/api/author/widgets/3/sync', { force: true });
      // The audience check comes first: the author is not support.
      expectProblem(res, 403, 'FORBIDDEN');
      expectProblem(await api.as('support-token').post('/api/author/widgets/3/sync', { force: true }), 400, 'VALIDATION_FAILED');
    });
  });

  describe('bodies as the original service’s clients send them', () => {
    const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
    const JSON_TYPE = { 'content-type': 'application/json' };
    const expected = { widget: { name: 'Gadget', size: 3 }, tags: [{ label: 'a' }, { label: '12' }] };
    const bracketed = 'widget[name]=Gadget&widget[size]=3&tags[0][label]=a&tags[1][label]=12';

    it('builds the body from bracketed query parameters, typed as the DTO declares', async () => {
      const res = await api.request('POST', `/api/author/widgets?${bracketed}`, '', JSON_TYPE);
      expect(res.status).toBe(201);
      expect(calls[S.create].at(-1)?.body).toEqual(expected);
      const patch = await api.request('PATCH', '/api/author/widgets/4?widget[name]=New', undefined);
      expect(patch.status).toBe(200);
      expect(calls[S.update].at(-1)).toMatchObject({ params: { id: 4 }, body: { widget: { name: 'New' } } });
    });

    it('reads form bodies with the same keys and types', async () => {
      const res = await api.request('POST', '/api/author/widgets', bracketed, FORM);
      expect(res.status).toBe(201);
      expect(calls[S.create].at(-1)?.body).toEqual(expected);
      const appended = await api.request('PUT', '/api/author/widgets/4', 'widget[name]=x&tags[][label]=p&tags[][label]=q', FORM);
      expect(appended.status).toBe(200);
      expect(calls[S.update].at(-1)?.body).toEqual({ widget: { name: 'x' }, tags: [{ label: 'p' }, { label: 'q' }] });
    });

    it('names the Content-Type as the fault of a JSON body sent as a form (curl -d), instead of an unknown field named like the JSON', async () => {
      const before = calls[S.create]?.length ?? 0;
      for (const body of ['{"widget": {"name": "x"}}', ' [{"widget": {}}]']) {
        const res = await api.request('POST', '/api/author/widgets', body, FORM);
        expectProblem(res, 400, 'MALFORMED_REQUEST');
        expect(res.body.detail).toMatch(/Content-Type: application\/json/);
      }
      expect(calls[S.create]?.length ?? 0).toBe(before);
      // A form that only starts like JSON is a form.
      expectProblem(await api.request('POST', '/api/author/widgets', '{x}=1&widget[name]=y', FORM), 400, 'VALIDATION_FAILED');
    });

    it('validates a built body exactly as a JSON body, without calling the service', async () => {
      const before = calls[S.create]?.length ?? 0;
      const json = await api.post('/api/author/widgets', { widget: { name: '', size: 'big', colour: 'red' } });
      const query = await api.request('POST', '/api/author/widgets?widget[name]=&widget[size]=big&widget[colour]=red', undefined);
      const form = await api.request('POST', '/api/author/widgets', 'widget[name]=&widget[size]=big&widget[colour]=red', FORM);
      for (const res of [json, query, form]) expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(query.body.errors).toEqual(json.body.errors);
      expect(form.body.errors).toEqual(json.body.errors);
      expectProblem(await api.request('POST', '/api/author/widgets', 'widget[__proto__][x]=1', FORM), 400, 'VALIDATION_FAILED');
      expectProblem(await api.request('POST', '/api/author/widgets?widget=a&widget[name]=b', undefined), 400, 'VALIDATION_FAILED');
      // The checks every JSON body meets (text Postgres cannot store) meet built bodies too.
      const nul = await api.request('POST', '/api/author/widgets?widget[name]=a%00b', undefined);
      expectProblem(nul, 400, 'VALIDATION_FAILED');
      expect(nul.body.errors).toEqual([{ field: 'widget.name', message: expect.any(String) }]);
      expect(calls[S.create]?.length ?? 0).toBe(before);
    });

    it('joins body parameters of the query string to a JSON or form body, as Rails merges them; one name with two values is refused', async () => {
      const joined = await api.request('POST', '/api/author/widgets?tags[0][label]=red', { widget: { name: 'a', size: 2 } });
      expect(joined.status).toBe(201);
      expect(calls[S.create].at(-1)).toMatchObject({ body: { widget: { name: 'a', size: 2 }, tags: [{ label: 'red' }] } });
      const fromForm = await api.request('POST', '/api/author/widgets?widget[size]=3&widget[name]=a', 'widget[name]=a&widget[size]=3&tags[0][label]=blue', FORM);
      expect(fromForm.status).toBe(201);
      expect(calls[S.create].at(-1)).toMatchObject({ body: { widget: { name: 'a', size: 3 }, tags: [{ label: 'blue' }] } });
      const before = calls[S.create].length;
      const twice = await api.request('POST', '/api/author/widgets?widget[name]=b', { widget: { name: 'a' } });
      expectProblem(twice, 400, 'BODY_GIVEN_TWICE');
      expect(twice.body.errors).toEqual([{ field: 'widget', message: expect.any(String) }]);
      expectProblem(await api.request('POST', '/api/author/widgets?widget[name]=b', 'widget[name]=a', FORM), 400, 'BODY_GIVEN_TWICE');
      expectProblem(await api.request('POST', '/api/author/widgets?tags[0][label]=red', [{ widget: { name: 'a' } }]), 400, 'BODY_GIVEN_TWICE');
      expect(calls[S.create].length).toBe(before);
    });

    it('keeps the query parameters that are not body fields as query parameters', async () => {
      const res = await api.request('PATCH', '/api/author/widgets/4?widget[name]=x&debug=1', undefined);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toEqual([{ field: 'debug', message: expect.any(String) }]);
      expectProblem(await api.as('support-token').request('POST', '/api/author/widgets/3/sync', 'force=true', FORM), 400, 'VALIDATION_FAILED');
      expect((await api.as('support-token').request('POST', '/api/author/widgets/3/sync', '', FORM)).status).toBe(200);
    });
  });

  describe('as_user_id', () => {
    it('lets an administrator act as another user: the service sees that user, and the administrator as actorId', async () => {
      const res = await api.as('admin-token').get('/api/author/widgets/5?as_user_id=101');
      expect(res.status).toBe(200);
      expect(calls[S.show].at(-1)).toMatchObject({ ctx: { accountId: 11, subAccountId: 5, userId: 101, roles: ['author'], actorId: 102 }, query: {} });
      const list = await api.as('admin-token').get('/api/author/widgets?as_user_id=101&limit=10');
      expect(list.status).toBe(200);
      expect(list.headers.get('link')).toContain('as_user_id=101');
      expect(calls[S.list].at(-1)?.ctx).toMatchObject({ userId: 101, actorId: 102 });
      const plain = await api.as('admin-token').get('/api/author/widgets/5');
      expect(plain.status).toBe(200);
      expect(calls[S.show].at(-1)?.ctx).toEqual({ requestId: expect.any(String), accountId: 11, subAccountId: null, userId: 102, roles: ['admin'] });
    });

    it('is a 403 for anyone but an administrator, before any lookup or service call', async () => {
      const before = calls[S.show]?.length ?? 0;
      expectProblem(await api.get('/api/author/widgets/5?as_user_id=104'), 403, 'MASQUERADE_FORBIDDEN');
      expectProblem(await api.as('support-token').get('/api/author/widgets/5?as_user_id=101'), 403, 'MASQUERADE_FORBIDDEN');
      expect(calls[S.show]?.length ?? 0).toBe(before);
      expect(masqueradeLookups).not.toContainEqual(expect.objectContaining({ userId: 101 }));
    });

    it('answers what identity decides: 404 for nobody of the account, 403 for one it refuses, and the audience of the user acted as', async () => {
      expectProblem(await api.as('admin-token').get('/api/author/widgets/5?as_user_id=999'), 404, 'USER_NOT_FOUND');
      expectProblem(await api.as('admin-token').get('/api/author/widgets/5?as_user_id=201'), 404, 'USER_NOT_FOUND');
      expectProblem(await api.as('admin-token').get('/api/author/widgets/5?as_user_id=102'), 403, 'MASQUERADE_FORBIDDEN');
      // A learner is outside the author audience: acting as one on an author route is what the learner would get.
      expectProblem(await api.as('admin-token').get('/api/author/widgets/5?as_user_id=103'), 403, 'FORBIDDEN');
      expect((await api.as('admin-token').get('/api/author/widgets/5?as_user_id=uid:author-uid')).status).toBe(200);
    });

    it('is a 400 when malformed or repeated, and an unknown parameter outside author routes', async () => {
      for (const query of ['as_user_id=abc', 'as_user_id=0', 'as_user_id=101&as_user_id=104']) {
        const res = await api.as('admin-token').get(`/api/author/widgets/5?${query}`);
        expectProblem(res, 400, 'VALIDATION_FAILED');
        expect(res.body.errors).toEqual([{ field: 'as_user_id', message: expect.any(String) }]);
      }
      expectProblem(await api.as('admin-token').get('/api/admin/secrets?as_user_id=101'), 400, 'VALIDATION_FAILED');
    });

    it('is never dropped unread: a bracketed or percent-encoded as_user_id is a 400, not a request run as the caller', async () => {
      const before = calls[S.show]?.length ?? 0;
      for (const query of ['as_user_id[]=101', 'as_user_id%5B%5D=101', 'as%5Fuser%5Fid=101', 'as_user_id[]=101&as_user_id[]=104']) {
        for (const token of ['admin-token', 'author-token']) {
          const res = await api.as(token).get(`/api/author/widgets/5?${query}`);
          expect([query, token, res.status >= 400 && res.status < 500, res.body?.errors?.[0]?.field ?? res.body?.code]).toEqual([query, token, true, expect.stringMatching(/as_user_id|MASQUERADE_FORBIDDEN/)]);
        }
      }
      expect(calls[S.show]?.length ?? 0).toBe(before);
    });
  });

  describe('routing errors', () => {
    it('answers 404 problem for an unknown /api path', async () => {
      expectProblem(await api.get('/api/author/gadgets'), 404, 'ROUTE_NOT_FOUND');
    });

    it('answers 400 problem for a malformed URL', async () => {
      expectProblem(await api.get('/api/author/widgets/%E0%A4%A'), 400, 'MALFORMED_REQUEST');
    });

    it('answers a request before refusing the bytes that follow it on the connection (a Content-Length shorter than the body)', async () => {
      const before = calls[S.create]?.length ?? 0;
      const body = JSON.stringify({ widget: { name: 'waits' } });
      const { port } = new URL(gateway.url);
      const socket = connect(Number(port), '127.0.0.1');
      const answers = new Promise<string>((resolve, reject) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString())).on('close', () => resolve(text)).on('error', reject);
      });
      socket.write(`POST /api/author/widgets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer author-token\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      // The rest of a longer body arrives while the service works on the request the Content-Length delimited.
      await createArrived.promise;
      socket.write(', "more": 1}\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
      createGate.resolve();
      const text = await answers;
      // The widget was created: the client is told so first, then that the rest was not HTTP.
      expect(calls[S.create]?.length ?? 0).toBe(before + 1);
      expect(text.match(/HTTP\/1\.1 \d+ /g)).toEqual(['HTTP/1.1 201 ', 'HTTP/1.1 400 ']);
      expect(text).toContain('"name":"waits"');
    });

    it('answers 405 with Allow for a known path and another method', async () => {
      const res = await api.request('POST', '/api/author/widgets/3', {});
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, DELETE');
    });
  });

  describe('service failures', () => {
    it('answers 503 quickly when no service listens', async () => {
      // A missing responder must not wait for the RPC timeout (5 s here), which would answer 504.
      expectProblem(await api.get('/api/learner/nobody'), 503, 'SERVICE_UNAVAILABLE');
    });

    it('answers 504 when the service is slower than the RPC timeout', async () => {
      const res = await new ApiClient(hasty.url, 'learner-token').get('/api/learner/slow');
      expectProblem(res, 504, 'GATEWAY_TIMEOUT');
    });

    it('passes a service’s deliberate error on with its status and code', async () => {
      const conflict = await api.post('/api/learner/conflicts');
      expectProblem(conflict, 409, 'LOCK_HELD');
      expect(conflict.body).toMatchObject({ type: 'https://learning-service.dev/problems/lock-held', title: 'Conflict', detail: 'Locked by user 7.' });
      expectProblem(await api.get('/api/author/widgets/404'), 404, 'WIDGET_NOT_FOUND');
    });

    it('answers a service 500 or crash with a request id and nothing internal', async () => {
      for (const path of ['/api/learner/broken', '/api/learner/crashing']) {
        const res = await api.get(path);
        expectProblem(res, 500, 'INTERNAL_ERROR');
        expect(res.text).not.toMatch(/hunter2|db\.internal|repository|DB_EXPLODED|TypeError/);
      }
    });
  });

  describe('conditional GET', () => {
    it('tags every 200 GET and answers 304 to a matching If-None-Match', async () => {
      const first = await api.get('/api/author/widgets/5');
      const etag = first.headers.get('etag');
      expect(first.status).toBe(200);
      expect(etag).toMatch(/^"[^"]+"$/);
      for (const header of [etag as string, `W/${etag}`, `"stale", ${etag}`, '*']) {
        const res = await api.get('/api/author/widgets/5', { 'if-none-match': header });
        expect([res.status, res.text]).toEqual([304, '']);
        expect(res.headers.get('etag')).toBe(etag);
      }
      const other = await api.get('/api/author/widgets/6', { 'if-none-match': etag as string });
      expect(other.status).toBe(200);
      expect(other.headers.get('etag')).not.toBe(etag);
    });
  });

  describe('paging', () => {
    it('answers Link and X-Total-Count, keeping the other query parameters', async () => {
      const res = await api.get('/api/author/widgets?sort=name&includes[]=counts&page=2&per_page=10');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe('35');
      expect(res.body.meta).toEqual({});
      // Absolute, on the request's own Host (no PUBLIC_URL here): clients follow a link as it is.
      const q = (page: number) => `${api.baseUrl}/api/author/widgets?sort=name&includes[]=counts&page=${page}&per_page=10`;
      expect(res.headers.get('link')).toBe(`<${q(1)}>; rel="first", <${q(1)}>; rel="prev", <${q(3)}>; rel="next", <${q(4)}>; rel="last"`);
    });

    it('takes limit as another name for per_page', async () => {
      const res = await api.get('/api/author/widgets?limit=10&page=2&sort=name');
      expect(res.status).toBe(200);
      expect(calls[S.list].at(-1)?.query).toEqual({ sort: 'name', page: 2, per_page: 10 });
      expect(res.headers.get('link')).toContain(`<${api.baseUrl}/api/author/widgets?sort=name&page=3&per_page=10>; rel="next"`);
      expect((await api.get('/api/author/widgets?limit=10&per_page=10')).status).toBe(200);
      const clash = await api.get('/api/author/widgets?limit=10&per_page=20');
      expectProblem(clash, 400, 'VALIDATION_FAILED');
      expect(clash.body.errors).toEqual([{ field: 'limit', message: expect.stringContaining('per_page') }]);
      const bad = await api.get('/api/author/widgets?limit=0');
      expectProblem(bad, 400, 'VALIDATION_FAILED');
      expect(bad.body.errors).toEqual([{ field: 'limit', message: expect.stringMatching(/^limit must not be less than 1/) }]);
      // Not a list: limit is an unknown parameter like any other.
      expectProblem(await api.get('/api/author/widgets/5?limit=10'), 400, 'VALIDATION_FAILED');
    });

    it('reads a page size above the largest as the largest (1000), as the original pager did, by either name', async () => {
      for (const query of ['per_page=5000', 'limit=5000', 'per_page=99999999999999999999']) {
        const res = await api.get(`/api/author/widgets?${query}&sort=name`);
        expect([query, res.status]).toEqual([query, 200]);
        expect(calls[S.list].at(-1)?.query).toEqual({ sort: 'name', page: 1, per_page: 1000 });
        expect(res.headers.get('link')).toContain(`<${api.baseUrl}/api/author/widgets?sort=name&page=1&per_page=1000>; rel="first"`);
      }
      // Not a whole number: still the validator's to refuse.
      for (const query of ['per_page=5000.5', 'per_page=-5000', 'per_page=5e3']) expectProblem(await api.get(`/api/author/widgets?${query}`), 400, 'VALIDATION_FAILED');
    });

    it('forwards the default page size when none is asked', async () => {
      const res = await api.get('/api/author/widgets');
      expect(calls[S.list].at(-1)?.query).toEqual({ page: 1, per_page: 50 });
      const first = `${api.baseUrl}/api/author/widgets?page=1&per_page=50`;
      expect(res.headers.get('link')).toBe(`<${first}>; rel="first", <${first}>; rel="last"`);
    });
  });

  describe('token cache', () => {
    it('keeps a principal cached until an invalidation for its token arrives', async () => {
      const client = api.as('revocable-token');
      expect((await client.get('/api/author/widgets/1')).status).toBe(200);
      expect((await client.get('/api/author/widgets/1')).status).toBe(200);
      expect(lookups.get('revocable-token')).toBe(1);

      revoked.add('revocable-token');
      // Still cached: identity is not asked again until told.
      expect((await client.get('/api/author/widgets/1')).status).toBe(200);

      serviceBus.broadcast('identity.auth.invalidate', { tokenHashes: [sha256('revocable-token')] });
      const res = await eventually(async () => {
        const attempt = await client.get('/api/author/widgets/1');
        return attempt.status === 401 ? attempt : undefined;
      });
      expectProblem(res, 401, 'UNAUTHENTICATED');
      expect(lookups.get('revocable-token')).toBeGreaterThanOrEqual(2);
    });

    it('drops every token of a user named by an invalidation', async () => {
      const client = api.as('leaver-token');
      expect((await client.get('/api/author/widgets/1')).status).toBe(200);
      const before = lookups.get('leaver-token');
      serviceBus.broadcast('identity.auth.invalidate', { userId: 202, accountId: 12 });
      await eventually(async () => {
        await client.get('/api/author/widgets/1');
        return (lookups.get('leaver-token') ?? 0) > (before ?? 0) ? true : undefined;
      });
    });
  });

  describe('operations', () => {
    it('answers liveness and readiness, with each check by name', async () => {
      const live = await fetch(`${gateway.url}/healthz`);
      expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
      const ready = await fetch(`${gateway.url}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok', checks: [{ name: 'bus', status: 'up' }, { name: 'switchable', status: 'up' }] }]);
      readinessDown = true;
      try {
        const down = await fetch(`${gateway.url}/readyz`);
        expect([down.status, await down.json()]).toEqual([
          503,
          { status: 'unavailable', checks: [{ name: 'bus', status: 'up' }, { name: 'switchable', status: 'down', error: 'switched off' }] },
        ]);
      } finally {
        readinessDown = false;
      }
    });

    it('exposes Prometheus metrics by route template, for the health port and not on the public one', async () => {
      await api.get('/api/author/widgets/77');
      const hidden = await fetch(`${gateway.url}/metrics`);
      expect(hidden.status).toBe(404); // no METRICS_TOKEN: the public port keeps them to itself
      expect(hidden.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const { contentType, text } = await gateway.metrics!();
      expect(contentType).toMatch(/^text\/plain/);
      expect(text).toContain('process_cpu_user_seconds_total');
      expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/author\/widgets\/:id",status="200"\} \d+/);
      expect(text).not.toContain('/api/author/widgets/77');
    });

    it('logs one JSON line per request, and an unexpected error in full with its request id', async () => {
      await api.request('GET', '/api/author/widgets/8', undefined, { 'x-request-id': 'log-check-1' });
      await api.request('GET', '/api/learner/crashing', undefined, { 'x-request-id': 'log-check-2' });
      const line = await eventually(async () => logLines.find((l) => l.requestId === 'log-check-1' && l.msg === 'request'));
      expect(line).toMatchObject({ method: 'GET', route: '/api/author/widgets/:id', status: 200, durationMs: expect.any(Number) });
      const failure = await eventually(async () => logLines.find((l) => l.requestId === 'log-check-2' && l.msg === 'request failed'));
      expect(failure).toMatchObject({ level: 50, method: 'GET', url: '/api/learner/crashing', err: { message: expect.any(String), stack: expect.any(String) } });
    });

    it('starts with the real route table, every route behind authentication', async () => {
      const real = await start(runtime(gatewayBus));
      try {
        const doc = (await new ApiClient(real.url).get('/api/openapi.json')).body;
        expect(Object.keys(doc.paths).length).toBe(new Set(ROUTES.map((r) => r.path)).size);
        for (const route of ROUTES) {
          const path = route.path.replace(/:[A-Za-z_]+/g, '1');
          for (const method of route.methods) expectProblem(await new ApiClient(real.url).request(method, path), 401, 'UNAUTHENTICATED');
        }
      } finally {
        await real.close();
      }
    });

    it('lets requests in flight finish when closing', async () => {
      const draining = await start(runtime(gatewayBus), WIDGET_ROUTES);
      const arrived = deferred();
      slowArrivals.push(arrived);
      const inFlight = new ApiClient(draining.url, 'learner-token').get('/api/learner/slow');
      await arrived.promise;
      const closed = draining.close();
      held.resolve();
      const res = await inFlight;
      await closed;
      expect([res.status, res.body]).toEqual([200, { late: true }]);
      await expect(fetch(`${draining.url}/healthz`)).rejects.toThrow();
    });
  });
});
