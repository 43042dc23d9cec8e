import type { RequestContext, RpcRequest } from '@lms/contracts';
import { forwardedHeaders, rememberForwardedHeaders } from './forwarded-headers.js';

const ctx = (): RequestContext => ({ requestId: 'r', accountId: 1, subAccountId: null, userId: 2, roles: ['author'] });

describe('forwardedHeaders', () => {
  it('answers the headers forwarded with the request a ctx belongs to, and nothing for another ctx', () => {
    const request: RpcRequest = { ctx: ctx(), params: {}, query: {}, body: undefined, headers: { 'x-lock-id': 'abc' } };
    rememberForwardedHeaders(request);
    expect(forwardedHeaders(request.ctx)).toEqual({ 'x-lock-id': 'abc' });
    // An equal context is another request's: headers never leak between requests.
    expect(forwardedHeaders(ctx())).toEqual({});
  });

  it('is empty for a request without forwarded headers', () => {
    const request: RpcRequest = { ctx: ctx(), params: {}, query: {}, body: undefined };
    rememberForwardedHeaders(request);
    expect(forwardedHeaders(request.ctx)).toEqual({});
  });
});
