import { isDeepStrictEqual } from 'node:util';
import { type FieldError, type JsonSchema, MAX_PER_PAGE, type RouteDefinition } from '@lms/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AS_USER_PARAM, takesAsUser } from '../auth/masquerade.js';
import { DtoSchemas } from '../openapi/dto-schemas.js';
import { ProblemError } from './problem.js';
import { normaliseQuery, searchOf, type RawQuery } from './query-normaliser.js';
import { assertIdentityCoding, assertPercentUtf8, utf8Text } from './utf8.js';
import { buildParams, compileCoercer, formPairs, type ParamNode, ParamsError, rootOf, type Coercer } from './rails-params.js';

/**
 * The request as the original service's clients send it, turned into the shape the DTOs validate
 * (docs/compatibility.md): `limit` for `per_page`, a page size above the largest, a body given as bracketed query parameters or as a
 * form, `as_user_id` (handled at authentication) out of the query. The one place readInput asks about these habits; what it returns is validated like any request.
 */
export interface CompatInput {
  query: RawQuery;
  body: unknown;
  /** Names fields in validation errors as the client sent them (`limit`, not `per_page`). */
  clientFields(errors: FieldError[]): FieldError[];
}

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** A form body as received: built into the route's body shape once the route is known. */
export class FormBody {
  constructor(readonly text: string) {}
}

/** Form bodies are read as text (within the same size limit as JSON) and built per route in compatInput. */
export function acceptFormBodies(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      assertIdentityCoding(request.headers['content-encoding']);
      const text = utf8Text(raw as Buffer);
      assertPercentUtf8(text, 'form body');
      if (isJsonText(text)) throw new ProblemError(400, 'MALFORMED_REQUEST', 'The body is JSON but is sent as a form (Content-Type: application/x-www-form-urlencoded, curl -d’s default): send it with Content-Type: application/json.');
      done(null, new FormBody(text));
    } catch (err) {
      done(err as Error);
    }
  });
}

/** A form's text that is a JSON object or array (its first character says so before any parse). */
function isJsonText(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What a route's body looks like to the parameter builder: its top-level names, and how to type their values. */
interface BodyPlan {
  keys: ReadonlySet<string>;
  coerce: Coercer;
  /** The same typing for a JSON body: its text values only. */
  coerceJson: Coercer;
}

const plans = new WeakMap<RouteDefinition, BodyPlan | null>();

/**
 * Derives each route's body plan from the JSON Schema of its body DTO (the one the OpenAPI document
 * shows). Run once at start for the whole table; a route met later is planned on first use.
 */
export function planRoutes(routes: readonly RouteDefinition[]): void {
  const schemas = new DtoSchemas();
  for (const route of routes) if (!plans.has(route)) plans.set(route, plan(route, schemas));
}

function plan(route: RouteDefinition, schemas: DtoSchemas): BodyPlan | null {
  if (!route.body) return null;
  const body = schemas.inline(route.body);
  const queryNames = new Set(Object.keys((route.query && (schemas.inline(route.query).properties as Record<string, JsonSchema>)) ?? {}));
  // A name the query DTO also declares is a query parameter: the query string keeps its usual meaning.
  const keys = new Set(Object.keys((body.properties as Record<string, JsonSchema> | undefined) ?? {}).filter((name) => !queryNames.has(name)));
  const resolve = (ref: string) => schemas.resolve(ref);
  return { keys, coerce: compileCoercer(body, resolve), coerceJson: compileCoercer(body, resolve, true) };
}

function planOf(route: RouteDefinition): BodyPlan | null {
  if (!plans.has(route)) planRoutes([route]);
  return plans.get(route) ?? null;
}

const invalid = (errors: FieldError[]) => new ProblemError(400, 'VALIDATION_FAILED', 'The request has invalid or unknown fields.', errors);

/** `limit` is `per_page` on every paged list; both at once must agree, as read (`limit=5000&per_page=1000` do). */
function aliasLimit(route: RouteDefinition, query: RawQuery): boolean {
  if (!route.paged || !Object.hasOwn(query, 'limit')) return false;
  const { limit, ...rest } = query;
  if (Object.hasOwn(rest, 'per_page') && JSON.stringify(pageSizeRead(rest.per_page)) !== JSON.stringify(pageSizeRead(limit))) {
    throw invalid([{ field: 'limit', message: 'limit is another name for per_page: send one of them, or both with the same value' }]);
  }
  delete query.limit;
  query.per_page = limit;
  return true;
}

/**
 * A page size above the largest is read as the largest, as the original service's pager did (Kaminari's
 * `max_per_page`, and Canvas's): a script asking for everything at once gets full pages and a `next`
 * link, not a 400. Anything that is not a whole number is left for the validator to refuse.
 */
function capPerPage(route: RouteDefinition, query: RawQuery): void {
  if (route.paged && Object.hasOwn(query, 'per_page')) query.per_page = pageSizeRead(query.per_page);
}

const pageSizeRead = (size: RawQuery[string]): RawQuery[string] =>
  typeof size === 'string' && /^[0-9]+$/.test(size) && Number(size) > MAX_PER_PAGE ? String(MAX_PER_PAGE) : size;

const hasContent = (body: unknown): boolean =>
  body !== undefined && body !== null && !(typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);

function build(pairs: [string, string][], coerce: Coercer | undefined): unknown {
  try {
    const built = buildParams(pairs);
    return coerce ? coerce(built) : built;
  } catch (err) {
    if (err instanceof ParamsError) throw invalid(err.errors);
    throw err;
  }
}

/** The query's pairs split into the body's (their top-level name is a body property) and the rest. */
function splitQuery(search: string, plan: BodyPlan | null): { query: RawQuery; bodyPairs: [string, string][] } {
  if (!plan || search === '') return { query: normaliseQuery(search), bodyPairs: [] };
  const rest = new URLSearchParams();
  const bodyPairs: [string, string][] = [];
  for (const [key, value] of new URLSearchParams(search)) {
    if (plan.keys.has(rootOf(key))) bodyPairs.push([key, value]);
    else rest.append(key, value);
  }
  return { query: bodyPairs.length > 0 ? normaliseQuery(rest.toString()) : normaliseQuery(search), bodyPairs };
}

/**
 * Body parameters in the query string join the body, as Rails merges a request's parameters: a script
 * may send `?parent_id=1` beside a JSON `sessions` body. A name given both ways must carry the same
 * value there and here; otherwise, or beside a body that is not an object, which one is meant is unclear.
 */
function mergeQueryIntoBody(body: unknown, bodyPairs: [string, string][], coerce: Coercer | undefined): unknown {
  const fromQuery = build(bodyPairs, coerce) as Record<string, unknown>;
  if (!hasContent(body)) return fromQuery;
  const twice = (keys: string[], message: string) =>
    new ProblemError(400, 'BODY_GIVEN_TWICE', 'The request gives body parameters both in the query string and in the body, differently.', keys.map((field) => ({ field, message })));
  if (typeof body !== 'object' || Array.isArray(body)) throw twice(Object.keys(fromQuery), 'the body is not an object, so body parameters cannot join it from the query string');
  const merged = { ...(body as Record<string, unknown>) };
  const differ: string[] = [];
  for (const [key, value] of Object.entries(fromQuery)) {
    if (Object.hasOwn(merged, key) && !isDeepStrictEqual(merged[key], value)) differ.push(key);
    else merged[key] = value;
  }
  if (differ.length > 0) throw twice(differ, 'given in the query string and in the body with different values');
  return merged;
}

export function compatInput(route: RouteDefinition, request: FastifyRequest): CompatInput {
  const plan = planOf(route);
  const search = searchOf(request.url);
  assertPercentUtf8(search, 'query string');
  const { query, bodyPairs } = splitQuery(search, plan);
  const limit = aliasLimit(route, query);
  capPerPage(route, query);
  // Already acted on when the request was authenticated (Masquerade), unless spelled so that it did not see it
  // (`as%5Fuser%5Fid`): then the request would run as the caller, so it is refused.
  if (takesAsUser(route) && Object.hasOwn(query, AS_USER_PARAM)) {
    if (request.principal?.actorId === undefined) throw invalid([{ field: AS_USER_PARAM, message: `${AS_USER_PARAM} must be sent as as_user_id=<user id or "uid:<uid>">` }]);
    delete query[AS_USER_PARAM];
  }

  let body: unknown = request.body;
  if (body instanceof FormBody) {
    const pairs = formPairs(body.text);
    body = pairs.length === 0 ? undefined : build(pairs, plan?.coerce);
  } else if (plan && typeof body === 'object' && body !== null) {
    body = plan.coerceJson(body as ParamNode);
  }
  if (bodyPairs.length > 0) body = mergeQueryIntoBody(body, bodyPairs, plan?.coerce);

  return {
    query,
    body,
    clientFields: limit ? (errors) => errors.map((e) => (e.field === 'per_page' ? { field: 'limit', message: e.message.replace(/^per_page\b/, 'limit') } : e)) : (errors) => errors,
  };
}
