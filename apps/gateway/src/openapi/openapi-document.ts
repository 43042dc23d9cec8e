import { STATUS_CODES } from 'node:http';
import { DEFAULT_PER_PAGE, openApiPath, type HttpMethod, type JsonSchema, type ResponseShape, type RouteDefinition, type RouteUpload } from '@lms/contracts';
import { AS_USER_PARAM, takesAsUser } from '../auth/masquerade.js';
import { FORM_CONTENT_TYPE } from '../http/compat-input.js';
import { PROBLEM_CONTENT_TYPE } from '../http/problem.js';
import { DtoSchemas } from './dto-schemas.js';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export type OpenApiDocument = {
  openapi: string;
  info: OpenApiInfo;
  paths: Record<string, Record<string, JsonSchema>>;
  components: Record<string, Record<string, JsonSchema>>;
} & JsonSchema;

export const DEFAULT_INFO: OpenApiInfo = {
  title: 'Learning Service API',
  version: '0.1.0',
  description:
    'Learning-management API. Every /api call needs `Authorization: Bearer <token>` (or the same token under the Basic scheme); errors are RFC 9457 problem documents. ' +
    'What clients of the original service may send besides JSON (bracketed query parameters, form bodies, `limit`, `as_user_id`) is in docs/compatibility.md.',
};

/** Statuses every route may answer besides its own (see RouteSpec.errors). */
const COMMON_ERRORS = [400, 401, 403, 404, 500, 503, 504];

const ref = (kind: string, name: string): JsonSchema => ({ $ref: `#/components/${kind}/${name}` });


const pathParamNames = (path: string): string[] => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);

const properties = (schema: JsonSchema): Record<string, JsonSchema> => (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
const requiredOf = (schema: JsonSchema): string[] => (schema.required as string[] | undefined) ?? [];

function bodySchema(shape: ResponseShape): JsonSchema | undefined {
  switch (shape.kind) {
    case 'envelope': {
      const props: Record<string, JsonSchema> = {
        meta: { type: 'object', description: 'Always empty' },
        [shape.key]: { type: 'array', items: shape.item },
      };
      if (shape.linked) {
        props.linked = {
          type: 'object',
          description: 'Side-loaded collections',
          properties: Object.fromEntries(Object.entries(shape.linked).map(([key, item]) => [key, { type: 'array', items: item }])),
        };
      }
      for (const [key, item] of Object.entries(shape.also ?? {})) props[key] = { type: 'array', items: item };
      return { type: 'object', required: ['meta', shape.key, ...Object.keys(shape.also ?? {})], properties: props };
    }
    case 'object':
      return shape.key ? { type: 'object', required: [shape.key], properties: { [shape.key]: shape.item } } : shape.item;
    default:
      return undefined;
  }
}

function successResponses(route: RouteDefinition, method: HttpMethod): Record<string, JsonSchema> {
  const shape = route.response;
  const headers: Record<string, JsonSchema> = { 'X-Request-Id': ref('headers', 'RequestId') };
  const response: JsonSchema = { description: STATUS_CODES[route.status] ?? 'Success', headers };
  const out: Record<string, JsonSchema> = { [String(route.status)]: response };
  if (shape.kind === 'redirect') {
    headers.Location = { description: 'Where the resource is', schema: { type: 'string', format: 'uri-reference' } };
    return out;
  }
  if (shape.kind === 'file') {
    response.content = { [shape.contentType]: { schema: { type: 'string', contentMediaType: shape.contentType } } };
  } else {
    const schema = bodySchema(shape);
    if (schema) response.content = { 'application/json': { schema } };
  }
  if (route.paged) {
    headers.Link = ref('headers', 'Link');
    headers['X-Total-Count'] = ref('headers', 'TotalCount');
  }
  if (method === 'GET' && route.status === 200) {
    headers.ETag = ref('headers', 'ETag');
    out['304'] = ref('responses', 'NotModified');
  }
  return out;
}

/** `PUT /api/admin/users/:id/roles` -> `putAdminUsersByIdRoles`: unique per method and path, and free of internal names. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\//, '')
    .split('/')
    .flatMap((segment) => (segment.startsWith(':') ? ['by', segment.slice(1)] : [segment]))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

const BRACKETS_NOTE =
  'The body may also come as a form (`application/x-www-form-urlencoded`) or, with no body, as query parameters, both with ' +
  'Rails-style bracketed keys (`custom_field[name]=Region`, `custom_fields[0][name]=Region`, `roles[]=admin`); integers, numbers and booleans ' +
  'are read as the schema types them. A JSON body and bracketed body parameters together are a 400 (docs/compatibility.md).';

/** JSON, or a form whose top-level fields use bracketed keys (OpenAPI's deepObject style). */
function requestBody(schema: JsonSchema, fields: string[]): JsonSchema {
  const encoding = Object.fromEntries(fields.map((field) => [field, { style: 'deepObject', explode: true }]));
  return {
    required: true,
    description: BRACKETS_NOTE,
    content: { 'application/json': { schema }, [FORM_CONTENT_TYPE]: { schema, encoding } },
  };
}

/** A route's request body: its DTO's (`body`), an upload's (the file, or a multipart form of one `file` and text fields), or either with `orJson`. */
function uploadBody(upload: RouteUpload | undefined, body: JsonSchema | undefined): JsonSchema | undefined {
  if (!upload) return body;
  const content: Record<string, JsonSchema> = upload.orJson && body ? { ...(body.content as Record<string, JsonSchema>) } : {};
  for (const type of upload.contentTypes) {
    content[type] = type === 'multipart/form-data'
      ? { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' }, ...Object.fromEntries((upload.fields ?? []).map((f) => [f, { type: 'string' }])) } } }
      : { schema: { type: 'string', format: 'binary' } };
  }
  return { ...(upload.orJson && body ? body : {}), required: true, content };
}

/**
 * OpenAPI 3.1 built from the route table, the same one the gateway serves: the document cannot drift
 * from the routes. Request schemas come from the DTOs' class-validator decorators.
 */
export function buildOpenApiDocument(routes: RouteDefinition[], info: OpenApiInfo = DEFAULT_INFO): OpenApiDocument {
  const dtos = new DtoSchemas();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const operationIds = new Set<string>();
  const problemStatuses = new Set<number>();
  const tags = new Set<string>();

  const parameters = (route: RouteDefinition): JsonSchema[] => {
    const pathSchema = route.params ? dtos.inline(route.params) : {};
    const path = pathParamNames(route.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: properties(pathSchema)[name] ?? { type: 'string' },
    }));
    const querySchema = route.query ? dtos.inline(route.query) : {};
    const query: JsonSchema[] = Object.entries(properties(querySchema)).map(([name, schema]) => ({
      name,
      in: 'query',
      required: requiredOf(querySchema).includes(name),
      schema,
      ...(schema.type === 'array' ? { style: 'form', explode: true, description: `Repeat the parameter (\`${name}=a&${name}=b\`, or \`${name}[]=…\`) or separate values by commas.` } : {}),
    }));
    if (route.paged) {
      // The gateway fills these defaults in before forwarding, so the document can promise them.
      const defaults: Record<string, number> = { page: 1, per_page: route.defaultPerPage ?? DEFAULT_PER_PAGE };
      for (const param of query) if (param.name as string in defaults) param.schema = { default: defaults[param.name as string], ...(param.schema as JsonSchema) };
      const perPage = query.find((param) => param.name === 'per_page');
      if (perPage) query.push({ name: 'limit', in: 'query', required: false, description: 'Another name for `per_page` (docs/compatibility.md)', schema: perPage.schema });
    }
    const extra = route.methods.includes('GET') ? [ref('parameters', 'IfNoneMatch')] : [];
    if (takesAsUser(route)) extra.push(ref('parameters', 'AsUserId'));
    // Declared request headers (RouteSpec.headers) are the only ones besides these the service sees.
    const headers = (route.headers ?? []).map(({ name, description, schema }) => ({ name, in: 'header', required: false, description, schema }));
    return [...path, ...query, ...extra, ...headers, ref('parameters', 'RequestId')];
  };

  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    const tag = route.subject.split('.')[1] ?? route.audience;
    tags.add(tag);
    for (const method of route.methods) {
      const key = method.toLowerCase();
      if (item[key]) throw new Error(`two routes for ${method} ${route.path}`);
      let operationId = operationIdOf(method, route.path);
      for (let n = 2; operationIds.has(operationId); n++) operationId = `${operationIdOf(method, route.path)}${n}`;
      operationIds.add(operationId);

      const errors = [...new Set([...COMMON_ERRORS, ...(route.body ? [413, 415] : []), ...(route.errors ?? [])])].sort((a, b) => a - b);
      errors.forEach((status) => problemStatuses.add(status));
      item[key] = {
        operationId,
        summary: route.summary,
        tags: [tag],
        // No NATS subject here: the bus is internal, and naming its subjects only helps an attacker on it (issue 11).
        description: route.roles?.length ? `Role: ${route.roles.join(' or ')} (whatever the audience of ${route.audience} paths).` : `Audience: ${route.audience}.`,
        parameters: parameters(route),
        ...(route.deprecated ? { deprecated: true } : {}),
        // An upload route takes the file itself as the body (a SCORM package), streamed, or a multipart form with one
        // file part; with `orJson`, its JSON (or form) body as the alternative.
        ...(route.body || route.upload ? { requestBody: uploadBody(route.upload, route.body && requestBody(dtos.ref(route.body), Object.keys(properties(dtos.inline(route.body))))) } : {}),
        responses: {
          ...successResponses(route, method),
          ...Object.fromEntries(errors.map((status) => [String(status), ref('responses', `Problem${status}`)])),
        },
      };
    }
  }

  const problemResponses = Object.fromEntries(
    [...problemStatuses].sort((a, b) => a - b).map((status) => {
      const headers: Record<string, JsonSchema> = { 'X-Request-Id': ref('headers', 'RequestId') };
      if (status === 401) headers['WWW-Authenticate'] = { description: 'Bearer challenge (RFC 6750)', schema: { type: 'string' } };
      return [`Problem${status}`, { description: STATUS_CODES[status] ?? 'Error', headers, content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('schemas', 'Problem') } } }];
    }),
  );

  const components = {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'Opaque access token issued by an administrator' },
      basicAuth: { type: 'http', scheme: 'basic', description: 'The same token under the Basic scheme, for clients of the original service: `Basic <token>`, or Basic credentials whose password is the token (any user name)' },
    },
    parameters: {
      RequestId: { name: 'X-Request-Id', in: 'header', required: false, description: 'Correlation id, echoed on the response; one is made when absent', schema: { type: 'string', maxLength: 128 } },
      AsUserId: {
        name: AS_USER_PARAM,
        in: 'query',
        required: false,
        description:
          'Administrators only: act as another live user of the account (id or `uid:<uid>`), as the original service’s masquerade did. ' +
          'A 403 for anyone else or for a user one may not act as (`meta.can_masquerade` on users tells), a 404 for nobody of the account.',
        schema: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^uid:' }] },
      },
      IfNoneMatch: { name: 'If-None-Match', in: 'header', required: false, description: 'ETags of a cached copy; a match answers 304', schema: { type: 'string' } },
    },
    headers: {
      RequestId: { description: 'Correlation id of the request', schema: { type: 'string' } },
      ETag: { description: 'Validator of this representation, for If-None-Match', schema: { type: 'string' } },
      Link: { description: 'RFC 8288 links to the first, prev, next and last pages', schema: { type: 'string' } },
      TotalCount: { description: 'Number of records over all pages', schema: { type: 'integer', minimum: 0 } },
    },
    responses: {
      NotModified: { description: 'Not Modified: the representation still matches If-None-Match', headers: { ETag: ref('headers', 'ETag'), 'X-Request-Id': ref('headers', 'RequestId') } },
      ...problemResponses,
    },
  };

  const extraSchemas: Record<string, JsonSchema> = {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details',
      required: ['type', 'title', 'status', 'code', 'request_id'],
      properties: {
        type: { type: 'string', format: 'uri-reference' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        code: { type: 'string', description: 'Stable machine-readable error code, e.g. VALIDATION_FAILED' },
        errors: { type: 'array', items: ref('schemas', 'FieldError') },
        request_id: { type: 'string' },
      },
    },
    FieldError: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
  };

  const document = {
    openapi: '3.1.0',
    info,
    security: [{ bearerAuth: [] }, { basicAuth: [] }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
  };
  return { ...document, components: { ...components, schemas: dtos.components({ paths, components }, extraSchemas) } };
}
