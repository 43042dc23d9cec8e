import { defineRoute } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import { declaredHeaders } from './declared-headers.js';

const route = (headers?: { name: string }[]) =>
  defineRoute({
    method: 'PUT', path: '/api/author/widgets/:id/lock', subject: 'widgets.lock', status: 204, summary: 'Lock', response: { kind: 'empty' },
    headers: headers?.map(({ name }) => ({ name, description: name, schema: { type: 'string' } })),
  });
const requestWith = (headers: Record<string, string | string[]>) => ({ headers }) as unknown as FastifyRequest;

describe('declaredHeaders', () => {
  it('forwards only the headers a route declares, by lower-case name', () => {
    const forwarded = declaredHeaders(route([{ name: 'X-Lock-Id' }]), requestWith({ 'x-lock-id': 'abc', authorization: 'Bearer secret', cookie: 'a=b' }));
    expect(forwarded).toEqual({ 'x-lock-id': 'abc' });
  });

  it('leaves a declared header that was not sent out, takes the first of repeated values, and cuts long values', () => {
    expect(declaredHeaders(route([{ name: 'X-Lock-Id' }]), requestWith({}))).toEqual({});
    expect(declaredHeaders(route([{ name: 'X-Lock-Id' }]), requestWith({ 'x-lock-id': ['one', 'two'] }))).toEqual({ 'x-lock-id': 'one' });
    expect(declaredHeaders(route([{ name: 'X-Lock-Id' }]), requestWith({ 'x-lock-id': 'x'.repeat(5000) }))?.['x-lock-id']).toHaveLength(1024);
  });

  it('is undefined for a route that declares none, so its requests travel as before', () => {
    expect(declaredHeaders(route(), requestWith({ 'x-lock-id': 'abc' }))).toBeUndefined();
  });
});
