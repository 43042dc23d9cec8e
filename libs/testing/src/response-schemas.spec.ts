import type { RouteDefinition } from '@lms/contracts';
import type { OpenApiDocument } from './route-fixtures.js';
import { ResponseSchemas } from './response-schemas.js';

const document: OpenApiDocument = {
  paths: {
    '/api/widgets/{id}': {
      get: {
        responses: {
          '200': { content: { 'application/json': { schema: { type: 'object', required: ['widgets'], properties: { widgets: { type: 'array', items: { $ref: '#/components/schemas/Widget' } } } } } } },
        },
      },
    },
  } as unknown as OpenApiDocument['paths'],
  components: { schemas: { Widget: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, size: { type: ['integer', 'null'] }, made_at: { type: 'string', format: 'date-time' } } } } },
};
const route = { path: '/api/widgets/:id' } as RouteDefinition;

describe('ResponseSchemas', () => {
  const schemas = new ResponseSchemas(document);

  it('accepts an answer shaped as documented, through component references', () => {
    expect(schemas.problem(route, 'GET', 200, { widgets: [{ id: '7', size: null }] })).toBeUndefined();
  });

  it('says what is wrong with one that is not', () => {
    expect(schemas.problem(route, 'GET', 200, { widgets: [{ id: 7 }] })).toBe('get /api/widgets/{id} 200: body/widgets/0/id must be string');
    expect(schemas.problem(route, 'GET', 200, {})).toMatch(/must have required property 'widgets'/);
    expect(schemas.problem(route, 'GET', 200, { widgets: [{ id: '7', made_at: '2026-11-27T21:00:00.000Z' }] })).toBeUndefined();
    expect(schemas.problem(route, 'GET', 200, { widgets: [{ id: '7', made_at: 'yesterday' }] })).toBe('get /api/widgets/{id} 200: body/widgets/0/made_at must match format "date-time"');
  });

  it('refuses a field the document does not name, which the served document itself leaves open', () => {
    expect(schemas.problem(route, 'GET', 200, { widgets: [{ id: '7', colour: 'red' }] })).toBe('get /api/widgets/{id} 200: body/widgets/0 must NOT have additional properties: colour');
    expect(schemas.problem(route, 'GET', 200, { widgets: [], skipped: [] })).toBe('get /api/widgets/{id} 200: body must NOT have additional properties: skipped');
    expect(document.components.schemas.Widget).not.toHaveProperty('additionalProperties');
  });

  it('refuses a status or a method the document does not answer with JSON', () => {
    expect(schemas.problem(route, 'GET', 201, {})).toBe('get /api/widgets/{id} 201: the document has no JSON answer for this status');
    expect(schemas.problem(route, 'DELETE', 200, {})).toMatch(/no JSON answer/);
  });
});
