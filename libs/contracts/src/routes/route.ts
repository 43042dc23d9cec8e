import { PageQuery } from '../common/query.js';
import type { Role } from '../context.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The audience a path prefix selects (spec: "What the service does"). */
export type Audience = 'admin' | 'author' | 'learner' | 'mobile' | 'downloads';

/** Roles admitted per audience (design §7); learner audiences admit any authenticated user. */
export const AUDIENCE_ROLES: Record<Audience, readonly Role[] | 'any'> = {
  admin: ['admin'],
  author: ['admin', 'author'],
  learner: 'any',
  mobile: 'any',
  downloads: 'any',
};

const PREFIXES: [string, Audience][] = [
  ['/api/mobile/learner/', 'mobile'],
  ['/api/admin/', 'admin'],
  ['/api/author/', 'author'],
  ['/api/learner/', 'learner'],
  ['/api/downloads', 'downloads'],
];

export function audienceOf(path: string): Audience {
  const hit = PREFIXES.find(([prefix]) => path.startsWith(prefix));
  if (!hit) throw new Error(`route ${path} is outside every audience prefix`);
  return hit[1];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a DTO class of any constructor shape
export type DtoClass = new (...args: any[]) => object;

/** JSON Schema (2020-12, as OpenAPI 3.1 uses it) describing one response record. */
export type JsonSchema = Record<string, unknown>;

export type ResponseShape =
  /**
   * `{ meta: {}, [key]: [item…] }`, the spec's envelope; `linked` lists side-loaded collections, `also` the
   * further collections an answer always carries beside its own (`skipped` of an enrollment request).
   */
  | { kind: 'envelope'; key: string; item: JsonSchema; linked?: Record<string, JsonSchema>; also?: Record<string, JsonSchema> }
  /** An object returned directly or under a singular key (import profile, `lock`, `summary`…). */
  | { kind: 'object'; key?: string; item: JsonSchema }
  | { kind: 'empty' }
  | { kind: 'file'; contentType: string }
  | { kind: 'redirect' };

export interface RouteSpec {
  method: HttpMethod | HttpMethod[];
  path: string;
  subject: string;
  summary: string;
  /** Success status when the service does not choose another. */
  status: number;
  params?: DtoClass;
  query?: DtoClass;
  body?: DtoClass;
  response: ResponseShape;
  /** Error statuses the endpoint documents besides the ones every route has (400, 401, 403, 404, 503, 504). */
  errors?: number[];
  /**
   * The status of a query or body its DTOs refuse (`VALIDATION_FAILED`), where the spec's table gives 422
   * rather than 400 ("422 not created", "422 required parameter missing"); a bad path parameter stays a 400.
   */
  invalidStatus?: 422;
  /**
   * Dotted paths of the answer (through arrays) whose path-absolute URLs (`/…`) the gateway makes absolute, as
   * it does the `Link` headers' (PUBLIC_URL, else the request's scheme and Host): a URL a client opens as it
   * is (a player page), where the same field is absolute for another kind of record (a vendor's course).
   */
  absoluteUrls?: string[];
  /** Lists page with `page`/`per_page` and answer a `Link` header; the service reports `total`. */
  paged?: boolean;
  /**
   * The page size when the request names none (DEFAULT_PER_PAGE otherwise): the largest for a list the spec
   * gives no paging, so that a script reading it whole gets what it always got, up to that many.
   */
  defaultPerPage?: number;
  /** The roles that may call the route, in place of its audience's (`support` for course sync, which support users who are no authors call); never on an /api/admin route. */
  roles?: Role[];
  /**
   * Request headers the gateway forwards to the service (as `headers`, by lower-case name), unvalidated:
   * the service decides what a missing or malformed one means (e.g. `X-Lock-Id`, a 422). No other header crosses the bus.
   */
  headers?: RouteHeader[];
  /**
   * A deprecated endpoint (spec: Versioning): the gateway answers a `Deprecation` header (RFC 9745) with
   * the date and a `Link` to the successor (rel="successor-version"); OpenAPI marks it deprecated.
   */
  deprecated?: RouteDeprecation;
  /**
   * The request body is a file of one of these types, not JSON: the gateway streams it into the file store
   * (up to UPLOAD_MAX_BYTES, else 413) and the service receives `body: UploadRequestBody`. A
   * `multipart/form-data` body carries one file part, streamed the same way, and the text `fields` named
   * here beside it (any other is a 400). With `orJson` the route also takes its `body` DTO as JSON
   * (evidence: text, or a file).
   */
  upload?: RouteUpload;
}

export interface RouteUpload {
  contentTypes: string[];
  fields?: string[];
  orJson?: boolean;
}

export interface RouteDeprecation {
  /** When it was deprecated, RFC 3339. */
  since: string;
  /** The path of what replaces it (rel="successor-version"), or of its documentation (rel="deprecation"). */
  link: string;
  rel: 'successor-version' | 'deprecation';
}

/** `/api/x/:id` -> `/api/x/{id}`: a route's path as OpenAPI writes it. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** A request header a route takes, documented in OpenAPI as a header parameter. */
export interface RouteHeader {
  name: string;
  description: string;
  /** What the header must look like, as JSON Schema (documentation; the service checks it). */
  schema: JsonSchema;
}

export interface RouteDefinition extends RouteSpec {
  methods: HttpMethod[];
  audience: Audience;
}

export function defineRoute(spec: RouteSpec): RouteDefinition {
  // The service validates the query again, so paging parameters must be part of the contract.
  if (spec.paged && !(spec.query && spec.query.prototype instanceof PageQuery)) {
    throw new Error(`paged route ${spec.path} needs a query DTO extending PageQuery`);
  }
  return {
    ...spec,
    methods: Array.isArray(spec.method) ? spec.method : [spec.method],
    audience: audienceOf(spec.path),
  };
}
