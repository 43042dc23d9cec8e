import { Validator } from '@seriousme/openapi-schema-validator';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';
import { defineRoute, openApiPath, ROUTES, type JsonSchema } from '@lms/contracts';
import { WIDGET_ROUTES } from '../../test/widget-routes.js';
import { buildOpenApiDocument, operationIdOf } from './openapi-document.js';

async function expectValid(document: object): Promise<void> {
  const result = await new Validator().validate(document as Record<string, unknown>);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
}

/** Two subclasses, without decorators of their own, of two parents that share one name (a class factory's habit). */
function fieldsOf(withSize: boolean) {
  class Fields {
    @IsString()
    name: string;
  }
  class SizedFields extends Fields {
    @IsInt()
    size: number;
  }
  return withSize ? SizedFields : Fields;
}
Object.defineProperty(fieldsOf(true), 'name', { value: 'Fields' });
class PlainThing extends fieldsOf(false) {}
class SizedThing extends fieldsOf(true) {}
class ThingsBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => PlainThing)
  plain: PlainThing;

  @IsDefined() @IsObject() @ValidateNested() @Type(() => SizedThing)
  sized: SizedThing;
}

type Operation = { operationId: string; parameters: JsonSchema[]; requestBody?: JsonSchema; responses: Record<string, JsonSchema> };

describe('buildOpenApiDocument', () => {
  const document = buildOpenApiDocument(WIDGET_ROUTES);
  const op = (path: string, method: string) => document.paths[path][method] as unknown as Operation;

  it('is a valid OpenAPI 3.1 document for a table with every response shape', async () => {
    expect(document.openapi).toBe('3.1.0');
    await expectValid(document);
  });

  it('is a valid document for the real route table', async () => {
    await expectValid(buildOpenApiDocument(ROUTES));
  });

  it('turns :params into templated paths with path parameters typed from the params DTO', () => {
    expect(openApiPath('/api/admin/widgets/:widget_id/export')).toBe('/api/admin/widgets/{widget_id}/export');
    const show = op('/api/author/widgets/{id}', 'get');
    expect(show.parameters).toContainEqual({ name: 'id', in: 'path', required: true, schema: expect.objectContaining({ type: 'integer', minimum: 1 }) });
  });

  it('documents query parameters from the DTO and paging parameters on paged routes', () => {
    const parameters = op('/api/author/widgets', 'get').parameters;
    expect(parameters.map((p) => p.name ?? p.$ref)).toEqual(expect.arrayContaining(['sort', 'includes', 'min_size', 'page', 'per_page', 'limit']));
    expect(parameters.find((p) => p.name === 'per_page')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', maximum: 1000, default: 50 } });
    expect(parameters.find((p) => p.name === 'limit')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', maximum: 1000 } });
    expect(parameters.find((p) => p.name === 'includes')).toMatchObject({ style: 'form', explode: true, schema: { type: 'array' } });
  });

  it('takes request bodies, nested classes included, from the DTOs', () => {
    const schema = { $ref: '#/components/schemas/CreateWidgetBody' };
    expect(op('/api/author/widgets', 'post').requestBody).toEqual({
      required: true,
      description: expect.stringContaining('bracketed'),
      content: {
        'application/json': { schema },
        'application/x-www-form-urlencoded': { schema, encoding: { widget: { style: 'deepObject', explode: true }, tags: { style: 'deepObject', explode: true } } },
      },
    });
    expect(document.components.schemas.CreateWidgetBody).toMatchObject({ properties: { widget: { $ref: '#/components/schemas/WidgetInput' } }, required: ['widget'] });
    expect(document.components.schemas.WidgetInput).toMatchObject({ properties: { name: { type: 'string' } }, required: ['name'] });
    // Arrays need class-transformer's @Type() metadata: the element class is invisible to reflection.
    expect(document.components.schemas.CreateWidgetBody).toMatchObject({ properties: { tags: { type: 'array', items: { $ref: '#/components/schemas/WidgetTag' } } } });
    expect(document.components.schemas.WidgetTag).toMatchObject({ properties: { label: { type: 'string' } } });
  });

  describe('documents the values a rule takes, where the schema library cannot read the rule', () => {
    const real = buildOpenApiDocument(ROUTES);
    const parameter = (path: string, method: string, name: string) => (real.paths[path] as Record<string, Operation>)[method].parameters.find((p) => p.name === name)?.schema;

    it('an RFC 3339 field is a date-time, in bodies and in queries', () => {
      expect(real.components.schemas.RetainQuizChanges).toMatchObject({ properties: { started_at: { type: 'string', format: 'date-time' } } });
      expect(parameter('/api/author/course_templates', 'get', 'updated_after')).toMatchObject({ format: 'date-time' });
    });

    it('our own rules: a page or its bookmark, a user by id or uid, a calendar date, a parent group or none', () => {
      expect(parameter('/api/admin/users', 'get', 'page')).toMatchObject({ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^bookmark:[A-Za-z0-9_-]+$' }] });
      const user = parameter('/api/admin/users/{id}', 'get', 'id') as { oneOf: JsonSchema[]; type?: string };
      expect([user.type, user.oneOf.map((s) => s.type)]).toEqual([undefined, ['integer', 'string', 'string']]);
      expect(parameter('/api/admin/users/{id}/summary', 'get', 'start_date')).toMatchObject({ type: 'string', format: 'date' });
      expect(real.components.schemas.GroupInput).toMatchObject({ properties: { parent_id: { oneOf: [{ type: 'integer' }, { type: 'string' }, { type: 'null' }] } } });
    });

    it('null where a rule takes it as a value; a key the rules require even when a condition lets null through', () => {
      const { EnrollmentEntry, SlideAttributes, CustomFieldValueInput } = real.components.schemas as Record<string, { properties: Record<string, JsonSchema>; required?: string[] }>;
      expect([EnrollmentEntry.properties.end_at, EnrollmentEntry.required ?? []]).toEqual([{ type: ['string', 'null'], format: 'date-time' }, expect.not.arrayContaining(['end_at'])]);
      expect([SlideAttributes.properties.allow_comments, SlideAttributes.required]).toEqual([{ type: ['boolean', 'null'] }, expect.arrayContaining(['allow_comments'])]);
      expect([CustomFieldValueInput.properties.value.type, CustomFieldValueInput.required]).toEqual([['string', 'null'], ['id', 'value']]);
    });
  });

  it('offers as_user_id on author routes only', () => {
    const asUser = { $ref: '#/components/parameters/AsUserId' };
    expect(op('/api/author/widgets', 'get').parameters).toContainEqual(asUser);
    expect(op('/api/author/widgets/{id}', 'patch').parameters).toContainEqual(asUser);
    expect(op('/api/admin/secrets', 'get').parameters).not.toContainEqual(asUser);
    expect(document.components.parameters.AsUserId).toMatchObject({ name: 'as_user_id', in: 'query', required: false });
  });

  it('describes a nested class with what it inherits, found through its @Type() rather than by name', () => {
    const things = buildOpenApiDocument([
      defineRoute({ method: 'POST', path: '/api/author/things', subject: 'test.things.create', status: 201, summary: 'Things', body: ThingsBody, response: { kind: 'empty' } }),
    ]);
    expect(things.components.schemas.PlainThing).toMatchObject({ properties: { name: { type: 'string' } } });
    expect(things.components.schemas.PlainThing.properties).not.toHaveProperty('size');
    expect(things.components.schemas.SizedThing).toMatchObject({ properties: { name: { type: 'string' }, size: { type: 'integer' } } });
  });

  it('documents the request headers a route declares (X-Lock-Id on lock renewals and on authoring writes)', () => {
    const real = buildOpenApiDocument(ROUTES);
    const parametersOf = (path: string, method: string) => (real.paths[path][method] as unknown as Operation).parameters;
    const lockId = expect.objectContaining({ name: 'X-Lock-Id', in: 'header', required: false, schema: { type: 'string', format: 'uuid' } });
    expect(parametersOf('/api/author/course_templates/{id}/lock', 'put')).toContainEqual(lockId);
    expect(parametersOf('/api/author/tasks/{id}/lock', 'delete')).toContainEqual(lockId);
    expect(parametersOf('/api/author/course_templates/{id}', 'patch')).toContainEqual(lockId);
    expect(parametersOf('/api/author/course_templates/{id}/lock', 'post')).not.toContainEqual(lockId);
    expect(parametersOf('/api/author/tasks/{id}/clone', 'post')).not.toContainEqual(lockId);
  });

  it('describes each response shape', () => {
    const list = op('/api/author/widgets', 'get').responses;
    expect(list['200'].content).toEqual({
      'application/json': {
        schema: expect.objectContaining({
          required: ['meta', 'widgets'],
          properties: expect.objectContaining({ meta: expect.any(Object), widgets: { type: 'array', items: expect.any(Object) }, linked: expect.any(Object) }),
        }),
      },
    });
    expect(Object.keys(list['200'].headers as object)).toEqual(expect.arrayContaining(['Link', 'X-Total-Count', 'ETag']));
    expect(list['304']).toBeDefined();
    expect(op('/api/author/widgets/{id}', 'delete').responses['204']).not.toHaveProperty('content');
    expect(op('/api/downloads/{id}/file', 'get').responses['302'].headers).toHaveProperty('Location');
    expect(op('/api/admin/widgets/{widget_id}/export', 'get').responses['200'].content).toHaveProperty(['text/csv']);
  });

  it('answers problem+json for the common errors and the route’s own', () => {
    const create = op('/api/author/widgets', 'post').responses;
    for (const status of ['400', '401', '403', '413', '415', '422', '500', '503', '504']) {
      expect(create[status]).toEqual({ $ref: `#/components/responses/Problem${status}` });
    }
    expect(document.components.responses.Problem422.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
  });

  it('gives every operation a unique id and the bearer scheme', () => {
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((o) => (o as unknown as Operation).operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['patchAuthorWidgetsById', 'putAuthorWidgetsById', 'getAdminWidgetsByWidgetIdExport']));
    expect(operationIdOf('PUT', '/api/admin/users/:id/roles')).toBe('putAdminUsersByIdRoles');
    expect(document.security).toEqual([{ bearerAuth: [] }, { basicAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('names no NATS subject, for the test table and the real one (the bus is internal)', () => {
    for (const routes of [WIDGET_ROUTES, ROUTES]) {
      const text = JSON.stringify(buildOpenApiDocument(routes));
      const named = routes.map((r) => r.subject).filter((subject) => text.includes(subject));
      expect(named).toEqual([]);
      expect(text).not.toMatch(/\bNATS\b/);
    }
  });
});
