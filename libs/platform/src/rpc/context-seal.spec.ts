import { createSecretKey, randomBytes } from 'node:crypto';
import type { RpcRequest } from '@lms/contracts';
import { loadConfig } from '../config/config.js';
import { CLOCK_SKEW_MS, CONTEXT_REFUSED, ContextRefusedError, ContextSeal, contextSealFor } from './context-seal.js';

const key = createSecretKey(randomBytes(32));
const NOW = 1_800_000_000_000;
const seal = new ContextSeal(key, 35_000, () => NOW);

const request = (overrides: Partial<RpcRequest> = {}): RpcRequest => ({
  ctx: { requestId: 'req-1', accountId: 7, subAccountId: null, userId: 3, roles: ['learner'] },
  params: { id: '12' },
  query: { page: 2 },
  body: { name: 'Ada' },
  ...overrides,
});

/** What the service decodes: the bus carries JSON text. */
const overTheWire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('ContextSeal', () => {
  it('accepts what it signed for that subject, after the trip over the wire', () => {
    const signed = seal.sign('identity.users.show', request());
    expect(signed.seal).toEqual({ v: 1, at: NOW, mac: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(seal.check('identity.users.show', overTheWire(signed))).toBeUndefined();
    expect(() => seal.verify('identity.users.show', overTheWire(signed))).not.toThrow();
  });

  it('survives the JSON trip for awkward but valid content (integer-like keys, unicode, lone surrogates, nulls, no body)', () => {
    const awkward = request({
      query: { b: '1', 10: 'x', 2: 'y', a: [1, null, { z: 1, 0: 0 }] } as Record<string, unknown>,
      body: { name: 'Zoë \u{1F600} \ud800 "quoted" \\', skipped: undefined, n: -0, big: 1e21, nested: { deep: [[[]]] } },
    });
    const signed = seal.sign('identity.users.create', awkward);
    expect(seal.check('identity.users.create', overTheWire(signed))).toBeUndefined();
    const noBody = seal.sign('identity.users.list', { ...request(), body: undefined });
    expect(seal.check('identity.users.list', overTheWire(noBody))).toBeUndefined();
  });

  it('covers forwarded headers when the request has them, so a lock id cannot be swapped on the bus', () => {
    const signed = seal.sign('locking.task_lock.renew', request({ headers: { 'x-lock-id': '6f0c1a2e-0000-4000-8000-000000000001' } }));
    expect(seal.check('locking.task_lock.renew', overTheWire(signed))).toBeUndefined();
    expect(seal.check('locking.task_lock.renew', { ...signed, headers: { 'x-lock-id': '6f0c1a2e-0000-4000-8000-000000000002' } })).toBe('mismatch');
    expect(seal.check('locking.task_lock.renew', { ...signed, headers: undefined })).toBe('mismatch');
    const without = seal.sign('locking.task_lock.renew', request());
    expect(seal.check('locking.task_lock.renew', { ...without, headers: { 'x-lock-id': 'added' } })).toBe('mismatch');
  });

  it('covers whatever ctx holds, so fields added later (a masquerading user) are signed too', () => {
    const signed = seal.sign('identity.users.show', { ...request(), ctx: { ...request().ctx, actingUserId: 1 } as RpcRequest['ctx'] });
    expect(seal.check('identity.users.show', overTheWire(signed))).toBeUndefined();
    expect(seal.check('identity.users.show', { ...signed, ctx: { ...signed.ctx, actingUserId: 2 } })).toBe('mismatch');
  });

  it('refuses a request without a seal, or with a seal of the wrong shape', () => {
    expect(seal.check('s.a.b', request())).toBe('missing');
    expect(seal.check('s.a.b', undefined)).toBe('missing');
    expect(seal.check('s.a.b', 'text')).toBe('missing');
    expect(seal.check('s.a.b', [request()])).toBe('missing');
    const signed = seal.sign('s.a.b', request());
    expect(seal.check('s.a.b', { ...signed, seal: 'x' })).toBe('malformed');
    expect(seal.check('s.a.b', { ...signed, seal: { ...signed.seal, v: 2 } })).toBe('malformed');
    expect(seal.check('s.a.b', { ...signed, seal: { ...signed.seal, at: '1' } })).toBe('malformed');
    expect(seal.check('s.a.b', { ...signed, seal: { ...signed.seal, mac: 'short' } })).toBe('malformed');
    expect(seal.check('s.a.b', { ...signed, seal: { ...signed.seal, mac: 5 } })).toBe('malformed');
    expect(seal.check('s.a.b', { ...signed, ctx: null })).toBe('malformed');
  });

  it('refuses any change to ctx, params, query, body, subject or signing time', () => {
    const signed = seal.sign('identity.users.show', request());
    const changed = [
      { ...signed, ctx: { ...signed.ctx, accountId: 8 } },
      { ...signed, ctx: { ...signed.ctx, roles: ['admin'] } },
      { ...signed, ctx: { ...signed.ctx, extra: true } },
      { ...signed, params: { id: '13' } },
      { ...signed, query: { page: 3 } },
      { ...signed, body: { name: 'Eve' } },
      { ...signed, body: undefined },
      { ...signed, seal: { ...signed.seal, at: NOW - 1 } },
    ];
    for (const payload of changed) expect(seal.check('identity.users.show', payload)).toBe('mismatch');
    expect(seal.check('identity.users.delete', signed)).toBe('mismatch');
  });

  it('refuses a seal made with another key', () => {
    const forger = new ContextSeal(createSecretKey(randomBytes(32)), 35_000, () => NOW);
    expect(seal.check('identity.users.list', forger.sign('identity.users.list', request()))).toBe('mismatch');
  });

  it('refuses a seal older or further in the future than its maximum age', () => {
    const at = (t: number) => new ContextSeal(key, 35_000, () => t).sign('s.a.b', request());
    expect(seal.check('s.a.b', at(NOW - 35_000))).toBeUndefined();
    expect(seal.check('s.a.b', at(NOW + 35_000))).toBeUndefined();
    expect(seal.check('s.a.b', at(NOW - 35_001))).toBe('expired');
    expect(seal.check('s.a.b', at(NOW + 35_001))).toBe('expired');
  });

  it('verify throws a 401 domain error naming the reason', () => {
    let thrown: unknown;
    try {
      seal.verify('s.a.b', request());
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ContextRefusedError);
    expect(thrown).toMatchObject({ status: 401, code: CONTEXT_REFUSED, reason: 'missing' });
    expect((thrown as ContextRefusedError).toRpcError()).toEqual({ status: 401, code: CONTEXT_REFUSED, title: 'Unauthorized', detail: 'The request is not signed by the gateway.' });
  });

  it('contextSealFor: two deployables configured with the same key agree; the maximum age is the RPC timeout plus clock skew', () => {
    const env = { NATS_URL: 'nats://127.0.0.1:4222', CONTEXT_SIGNING_KEY: 'k'.repeat(32), RPC_TIMEOUT_MS: '1000' };
    const config = loadConfig(env);
    const gateway = contextSealFor(config);
    const service = contextSealFor(loadConfig(env));
    const signed = gateway.sign('s.a.b', request());
    expect(service.check('s.a.b', overTheWire(signed))).toBeUndefined();
    const signedAt = (t: number) => new ContextSeal(config.contextSigningKey, 0, () => t).sign('s.a.b', request());
    expect(service.check('s.a.b', signedAt(Date.now() - 1000 - CLOCK_SKEW_MS + 2_000))).toBeUndefined();
    expect(service.check('s.a.b', signedAt(Date.now() - 1000 - CLOCK_SKEW_MS - 2_000))).toBe('expired');
    const otherKey = contextSealFor(loadConfig({ ...env, CONTEXT_SIGNING_KEY: 'j'.repeat(32) }));
    expect(otherKey.check('s.a.b', signed)).toBe('mismatch');
  });
});
