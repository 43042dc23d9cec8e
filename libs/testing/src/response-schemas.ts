import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { openApiPath, type RouteDefinition } from '@lms/contracts';
import type { ApiClient } from './http-client.js';
import type { OpenApiDocument } from './route-fixtures.js';

const DOCUMENT_ID = 'openapi';

/** A JSON Pointer token (RFC 6901): `~` and `/` escaped. */
const pointerToken = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The document with every object schema that lists its properties closed to others. The served document
 * leaves them open, so a field added later does not break a client; the service's own answers must still
 * send only what is documented, or the document would be out of date without anyone noticing.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document of any shape
function closed(node: unknown): any {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const each = (object: object, map: (value: unknown) => unknown) => Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
  // `properties` maps names to schemas: a field called `properties` is not a schema keyword.
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === 'properties' ? each(value as object, closed) : closed(value)]));
  return 'properties' in copy && !('additionalProperties' in copy) ? { ...copy, additionalProperties: false } : copy;
}

/**
 * Checks an answer against the response the OpenAPI document gives its route, method and status (OpenAPI
 * 3.1 schemas are JSON Schema 2020-12), with every documented object closed to undocumented fields. What a
 * client generated from the document expects is then what the service sends. One validator per response,
 * compiled on first use.
 */
export class ResponseSchemas {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    // The formats are part of what is documented: a `date-time` must be one.
    ajvFormats.default(this.ajv);
    this.ajv.addSchema({ ...closed(document), $id: DOCUMENT_ID });
  }

  /** Why `body` is not the documented JSON answer of `status`, or undefined when it is. */
  problem(route: RouteDefinition, method: string, status: number, body: unknown): string | undefined {
    const path = openApiPath(route.path);
    const key = `${method.toLowerCase()} ${path} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      const operation = this.document.paths[path]?.[method.toLowerCase()] as { responses?: Record<string, { content?: Record<string, unknown> }> } | undefined;
      if (!operation?.responses?.[status]?.content?.['application/json']) return `${key}: the document has no JSON answer for this status`;
      const pointer = ['paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema'].map(pointerToken).join('/');
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
      this.validators.set(key, validate);
    }
    if (validate(body)) return undefined;
    // Ajv's text leaves out which property was not documented; name it.
    const errors = (validate.errors ?? []).map((e) => (typeof e.params.additionalProperty === 'string' ? { ...e, message: `${e.message}: ${e.params.additionalProperty}` } : e));
    return `${key}: ${this.ajv.errorsText(errors, { dataVar: 'body' })}`;
  }
}

const served = new Map<string, Promise<ResponseSchemas>>();

/**
 * For specs outside the matrix: why `body` is not the JSON answer the document `api` serves gives the route
 * `method path` (the route table's path) and `status`, or undefined when it is. The document is read once.
 */
export async function undocumented(api: ApiClient, method: string, path: string, status: number, body: unknown): Promise<string | undefined> {
  let schemas = served.get(api.baseUrl);
  if (!schemas) {
    schemas = api.get('/api/openapi.json').then((res) => new ResponseSchemas(res.body as OpenApiDocument));
    served.set(api.baseUrl, schemas);
  }
  return (await schemas).problem({ path } as RouteDefinition, method, status, body);
}
