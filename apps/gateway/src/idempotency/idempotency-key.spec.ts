import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problem.js';
import { idempotencyKeyOf } from './idempotency-key.js';

const request = (method: string, key?: string | string[]) => ({ method, headers: key === undefined ? {} : { 'idempotency-key': key } }) as unknown as FastifyRequest;

describe('idempotencyKeyOf', () => {
  it('reads a bare or quoted key on a POST', () => {
    expect(idempotencyKeyOf(request('POST', '8e03978e-40d5-43e8-bc93-6894a57f9324'))).toEqual({ idempotencyKey: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(idempotencyKeyOf(request('POST', '"abc"'))).toEqual({ idempotencyKey: 'abc' });
    expect(idempotencyKeyOf(request('POST'))).toBeUndefined();
  });

  it('ignores the header on other methods', () => {
    expect(idempotencyKeyOf(request('PUT', 'abc'))).toBeUndefined();
  });

  it.each([[''], ['a b'], ['x'.repeat(256)], ['ké'], ['\u0000'], [['a', 'b']], ['""']])('refuses %j with a 400', (key) => {
    expect(() => idempotencyKeyOf(request('POST', key))).toThrow(ProblemError);
  });
});
