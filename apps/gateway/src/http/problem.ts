import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import type { FieldError, RpcError } from '@lms/contracts';
import { NoRespondersError, RequestTimeoutError, RequestTooLargeError } from '@lms/platform';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
/** The Bearer challenge (RFC 6750) every 401 of the API carries. */
export const BEARER_REALM = 'Bearer realm="learning-service"';
/** The challenge to a token that is unknown, expired or revoked, or whose user is gone. */
export const INVALID_TOKEN_CHALLENGE = `${BEARER_REALM}, error="invalid_token"`;
export const PROBLEM_TYPE_BASE = 'https://learning-service.dev/problems/';

/** RFC 9457 problem details as the gateway answers every error. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  errors?: FieldError[];
  request_id: string;
}

/** A problem before it is bound to a request: what to answer, and whether it is a fault worth an error log. */
export interface ResolvedProblem {
  status: number;
  code: string;
  title: string;
  detail?: string;
  errors?: FieldError[];
  headers: Record<string, string>;
  /** An unexpected failure: logged in full with the request id, answered as a bare 500. */
  unexpected: boolean;
}

/** A failure the gateway itself decides on (401, 403, 400…): thrown anywhere in a request, answered as is. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? code);
  }
}

/** RFC 9110's names where Node still has the older ones, so the gateway's titles match the services'. */
const RFC_9110_TITLES: Record<number, string> = { 413: 'Content Too Large', 422: 'Unprocessable Content' };

export const statusTitle = (status: number): string => RFC_9110_TITLES[status] ?? STATUS_CODES[status] ?? 'Error';

/** `COURSE_TEMPLATE_NOT_FOUND` -> `https://learning-service.dev/problems/course-template-not-found`. */
export function problemType(code: string): string {
  const slug = code
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug ? `${PROBLEM_TYPE_BASE}${slug}` : 'about:blank';
}

const INTERNAL: Omit<ResolvedProblem, 'unexpected'> = {
  status: 500,
  code: 'INTERNAL_ERROR',
  title: 'Internal Server Error',
  detail: 'An unexpected error occurred; quote the request id when reporting it.',
  headers: {},
};

const internal = (): ResolvedProblem => ({ ...INTERNAL, headers: {}, unexpected: true });

const isFieldError = (value: unknown): value is FieldError =>
  typeof value === 'object' && value !== null && typeof (value as FieldError).field === 'string' && typeof (value as FieldError).message === 'string';

/**
 * A service's error reply. Its status, code and text are the service's deliberate answer, except a 500:
 * that one is a fault, so nothing of it reaches the client. A service answers 401 only when it finds the
 * caller gone (deleted while the request ran), so the answer challenges as the gateway's own 401 does.
 */
export function fromRpcError(error: RpcError): ResolvedProblem {
  const status = Number.isInteger(error?.status) && error.status >= 400 && error.status <= 599 ? error.status : 500;
  if (status === 500) return internal();
  return {
    status,
    code: typeof error.code === 'string' && error.code ? error.code : codeForStatus(status),
    title: typeof error.title === 'string' && error.title ? error.title : statusTitle(status),
    detail: typeof error.detail === 'string' ? error.detail : undefined,
    errors: Array.isArray(error.errors) ? error.errors.filter(isFieldError) : undefined,
    // RFC 7235: every 401 carries a challenge.
    headers: status === 401 ? { 'www-authenticate': INVALID_TOKEN_CHALLENGE } : {},
    unexpected: false,
  };
}

/** `413` -> `PAYLOAD_TOO_LARGE`: the code of a status the gateway answers without a more specific one. */
export function codeForStatus(status: number): string {
  return statusTitle(status).toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

/** Fastify's own client errors (body parsing, size, media type) carry a 4xx `statusCode`. */
function clientErrorStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

const FRAMEWORK_DETAILS: Record<number, { code: string; detail?: string }> = {
  400: { code: 'MALFORMED_REQUEST' },
  404: { code: 'ROUTE_NOT_FOUND' },
  413: { code: 'PAYLOAD_TOO_LARGE', detail: 'The request body is larger than the gateway accepts.' },
  // Fastify's own 415 knows no route: a JSON route and a file upload meet it alike.
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'This endpoint does not take that Content-Type: send JSON as application/json, and a file as the type its endpoint names (/api/openapi.json).' },
};

/** Every error the gateway can meet, as the problem it answers. */
export function resolveProblem(error: unknown): ResolvedProblem {
  if (error instanceof ProblemError) {
    return { status: error.status, code: error.code, title: statusTitle(error.status), detail: error.detail, errors: error.errors, headers: error.headers, unexpected: false };
  }
  if (error instanceof RpcReplyError) return fromRpcError(error.error);
  if (error instanceof NoRespondersError) {
    return { status: 503, code: 'SERVICE_UNAVAILABLE', title: statusTitle(503), detail: 'The service for this request is not available; retry later.', headers: { 'retry-after': '1' }, unexpected: false };
  }
  if (error instanceof RequestTooLargeError) {
    return { status: 413, code: 'PAYLOAD_TOO_LARGE', title: statusTitle(413), detail: 'The request is larger than the services take (about 1 MiB with what the gateway adds to it).', headers: {}, unexpected: false };
  }
  if (error instanceof RequestTimeoutError) {
    return { status: 504, code: 'GATEWAY_TIMEOUT', title: statusTitle(504), detail: 'The service did not answer in time.', headers: {}, unexpected: false };
  }
  const status = error instanceof HttpException ? error.getStatus() : clientErrorStatus(error);
  if (status !== undefined && status >= 400 && status < 500) {
    const known = FRAMEWORK_DETAILS[status];
    // The messages of 4xx framework errors describe the client's request (bad JSON, empty body), nothing internal.
    const message = error instanceof Error ? error.message : undefined;
    return { status, code: known?.code ?? codeForStatus(status), title: statusTitle(status), detail: known?.detail ?? message, headers: {}, unexpected: false };
  }
  return internal();
}

export function problemDocument(problem: ResolvedProblem, requestId: string): ProblemDocument {
  return {
    type: problemType(problem.code),
    title: problem.title,
    status: problem.status,
    ...(problem.detail !== undefined ? { detail: problem.detail } : {}),
    code: problem.code,
    ...(problem.errors && problem.errors.length > 0 ? { errors: problem.errors } : {}),
    request_id: requestId,
  };
}

/** A service answered `{ ok: false, error }`: carried to the error handler, answered with the service's status. */
export class RpcReplyError extends Error {
  constructor(readonly error: RpcError) {
    super(`${error?.status} ${error?.code}`);
  }
}
