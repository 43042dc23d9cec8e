import { pageWindow, validateInput, type DtoClass, type FieldError, type PageQuery, type RouteDefinition } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import { rejectUnsafeInput } from './input-safety.js';
import { ProblemError } from './problem.js';
import { compatInput } from './compat-input.js';

export interface PageRequest {
  page: number;
  perPage: number;
}

/** What the gateway forwards: every part validated against the route's DTOs, nothing unknown left in. */
export interface RouteInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** Set for paged routes, with the defaults applied. */
  page?: PageRequest;
}

type Checked = { value: Record<string, unknown>; errors: FieldError[] };

const unknownFields = (raw: Record<string, unknown>): FieldError[] =>
  Object.keys(raw).map((field) => ({ field, message: `unknown field ${field}` }));

async function check(cls: DtoClass | undefined, raw: Record<string, unknown>): Promise<Checked> {
  if (!cls) return { value: raw, errors: unknownFields(raw) };
  const result = await validateInput<Record<string, unknown>>(cls, raw);
  return result.ok ? { value: result.value, errors: [] } : { value: raw, errors: result.errors };
}

const isEmptyBody = (body: unknown): boolean =>
  body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);

async function checkBody(route: RouteDefinition, body: unknown): Promise<{ value: unknown; errors: FieldError[] }> {
  if (!route.body) {
    // A route without a body DTO forwards none; anything sent would be silently dropped, so it is refused.
    return isEmptyBody(body) ? { value: undefined, errors: [] } : { value: undefined, errors: [{ field: 'body', message: 'this endpoint takes no request body' }] };
  }
  // No body at all is `{}` where `{}` is valid (every field optional: publish, data dumps), as clients send them.
  const result = await validateInput<object>(route.body, body ?? {});
  if ((body === undefined || body === null) && !result.ok) {
    throw new ProblemError(route.invalidStatus ?? 400, 'BODY_REQUIRED', 'This endpoint needs a JSON request body (Content-Type: application/json).');
  }
  return result.ok ? { value: result.value, errors: [] } : { value: undefined, errors: result.errors };
}

/** Validates path parameters, query and body together, so one 400 lists every bad field. */
export async function readInput(route: RouteDefinition, request: FastifyRequest): Promise<RouteInput> {
  const rawParams = { ...(request.params as Record<string, string>) };
  // Client habits of the original service (limit, bracketed body parameters, forms) become the usual shape here.
  const compat = compatInput(route, request);
  const rawQuery = compat.query;
  rejectUnsafeInput({ params: rawParams, query: rawQuery, body: compat.body });
  const [params, query, body] = await Promise.all([
    route.params ? check(route.params, rawParams) : Promise.resolve({ value: rawParams, errors: [] }),
    // A paged route's query DTO extends PageQuery (defineRoute insists), so `page`/`per_page` are checked there.
    check(route.query, rawQuery),
    checkBody(route, compat.body),
  ]);
  const errors = compat.clientFields([...params.errors, ...query.errors, ...body.errors]);
  if (errors.length > 0) {
    const status = params.errors.length === 0 ? (route.invalidStatus ?? 400) : 400;
    throw new ProblemError(status, 'VALIDATION_FAILED', 'The request has invalid or unknown fields.', errors);
  }
  if (!route.paged) return { params: params.value, query: query.value, body: body.value };
  const { page: pageNumber, perPage } = pageWindow(query.value as PageQuery, route.defaultPerPage);
  const page: PageRequest = { page: pageNumber, perPage };
  // A bookmark goes on as sent: the service reads its keyset start from it.
  const pageParam = typeof query.value.page === 'string' ? query.value.page : page.page;
  return { params: params.value, query: { ...query.value, page: pageParam, per_page: page.perPage }, body: body.value, page };
}
