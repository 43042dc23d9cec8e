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
  components: { schemas: { Widget: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, size: { type: ['integer', 'null'] } } } } },
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
  });

  it('refuses a status or a method the document does not answer with JSON', () => {
    expect(schemas.problem(route, 'GET', 201, {})).toBe('get /api/widgets/{id} 201: the document has no JSON answer for this status');
    expect(schemas.problem(route, 'DELETE', 200, {})).toMatch(/no JSON answer/);
  });
});
