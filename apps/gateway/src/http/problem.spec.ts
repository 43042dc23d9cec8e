import { BadRequestException, NotFoundException } from '@nestjs/common';
import { NoRespondersError, RequestTimeoutError } from '@lms/platform';
import { codeForStatus, fromRpcError, problemDocument, problemType, ProblemError, resolveProblem, RpcReplyError, statusTitle } from './problem.js';

describe('problemType', () => {
  it('turns a code into a kebab-case problem URI', () => {
    expect(problemType('COURSE_TEMPLATE_NOT_FOUND')).toBe('https://learning-service.dev/problems/course-template-not-found');
    expect(problemType('lockHeld')).toBe('https://learning-service.dev/problems/lock-held');
  });

  it('falls back to about:blank when the code has nothing usable', () => {
    expect(problemType('__')).toBe('about:blank');
  });
});

describe('resolveProblem', () => {
  it('answers a gateway problem as thrown, with its headers', () => {
    const problem = resolveProblem(new ProblemError(401, 'UNAUTHENTICATED', 'no token', undefined, { 'www-authenticate': 'Bearer' }));
    expect(problem).toEqual({ status: 401, code: 'UNAUTHENTICATED', title: 'Unauthorized', detail: 'no token', errors: undefined, headers: { 'www-authenticate': 'Bearer' }, unexpected: false });
  });

  it('maps bus failures to 503 and 504', () => {
    expect(resolveProblem(new NoRespondersError('catalog.x'))).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', unexpected: false });
    expect(resolveProblem(new RequestTimeoutError('catalog.x', 10))).toMatchObject({ status: 504, code: 'GATEWAY_TIMEOUT', unexpected: false });
  });

  it('keeps a service’s deliberate 4xx answer, field errors included', () => {
    const problem = resolveProblem(new RpcReplyError({ status: 409, code: 'LOCK_HELD', title: 'Conflict', detail: 'held by 7', errors: [{ field: 'id', message: 'locked' }] }));
    expect(problem).toMatchObject({ status: 409, code: 'LOCK_HELD', title: 'Conflict', detail: 'held by 7', errors: [{ field: 'id', message: 'locked' }] });
  });

  it("challenges on a service's 401 as the gateway's own 401 does (RFC 6750)", () => {
    expect(fromRpcError({ status: 401, code: 'UNAUTHENTICATED', title: 'Unauthorized' }).headers).toEqual({ 'www-authenticate': 'Bearer realm="learning-service", error="invalid_token"' });
    expect(fromRpcError({ status: 403, code: 'FORBIDDEN', title: 'Forbidden' }).headers).toEqual({});
  });

  it('turns a service 500, and a status out of range, into a bare internal error', () => {
    const leaked = fromRpcError({ status: 500, code: 'DB_DOWN', title: 'x', detail: 'password=hunter2' });
    expect(leaked).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', unexpected: true });
    expect(leaked.detail).not.toContain('hunter2');
    expect(fromRpcError({ status: 200, code: 'ODD', title: 'odd' })).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
  });

  it('maps framework client errors by their status', () => {
    const tooLarge = Object.assign(new Error('Request body is too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    expect(resolveProblem(tooLarge)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', unexpected: false });
    const badJson = Object.assign(new SyntaxError('Unexpected token } in JSON'), { statusCode: 400 });
    expect(resolveProblem(badJson)).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST', detail: 'Unexpected token } in JSON' });
    expect(resolveProblem(new NotFoundException('Cannot GET /api/nope'))).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND' });
    expect(resolveProblem(new BadRequestException('bad'))).toMatchObject({ status: 400 });
  });

  it('hides everything about an unknown error', () => {
    const problem = resolveProblem(new TypeError('cannot read properties of undefined (reading "secret")'));
    expect(problem).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', unexpected: true });
    expect(JSON.stringify(problem)).not.toContain('secret');
    expect(resolveProblem(Object.assign(new Error('handler timeout'), { statusCode: 503 }))).toMatchObject({ status: 500, unexpected: true });
  });
});

describe('problemDocument', () => {
  it('is an RFC 9457 document with code, field errors and the request id', () => {
    const doc = problemDocument(resolveProblem(new ProblemError(400, 'VALIDATION_FAILED', 'bad', [{ field: 'name', message: 'required' }])), 'req-1');
    expect(doc).toEqual({
      type: 'https://learning-service.dev/problems/validation-failed',
      title: 'Bad Request',
      status: 400,
      detail: 'bad',
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'name', message: 'required' }],
      request_id: 'req-1',
    });
  });

  it('leaves out empty field errors', () => {
    expect(problemDocument(resolveProblem(new ProblemError(403, 'FORBIDDEN', 'no', [])), 'r')).not.toHaveProperty('errors');
  });
});

describe('codeForStatus', () => {
  it('names a status in upper snake case', () => {
    expect(codeForStatus(415)).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(codeForStatus(429)).toBe('TOO_MANY_REQUESTS');
  });
});

describe('statusTitle', () => {
  it("names statuses as RFC 9110 does, as the services' problems do", () => {
    expect([statusTitle(422), statusTitle(413), statusTitle(404), statusTitle(599)]).toEqual(['Unprocessable Content', 'Content Too Large', 'Not Found', 'Error']);
  });
});
