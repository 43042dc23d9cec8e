import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiPath, type RouteDefinition } from '@lms/contracts';
import type { OpenApiDocument } from './route-fixtures.js';

const DOCUMENT_ID = 'openapi';

/** A JSON Pointer token (RFC 6901): `~` and `/` escaped. */
const pointerToken = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks an answer against the response the OpenAPI document gives its route, method and status (OpenAPI
 * 3.1 schemas are JSON Schema 2020-12). What a client generated from the document expects is then what the
 * service sends. One validator per response, compiled on first use.
 */
export class ResponseSchemas {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
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
    return validate(body) ? undefined : `${key}: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
  }
}
