import { Type } from 'class-transformer';
import { IsArray, IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { IdParams, PageQuery, QueryArray, QueryInt, defineRoute, type JsonSchema, type RouteDefinition } from '@lms/contracts';

/** A small route table of its own, covering every response shape, so the gateway is tested apart from the real one. */
export const WIDGET_SUBJECTS = {
  list: 'test.widgets.list',
  show: 'test.widgets.show',
  create: 'test.widgets.create',
  update: 'test.widgets.update',
  delete: 'test.widgets.delete',
  secrets: 'test.secrets.show',
  sync: 'test.widgets.sync',
  slow: 'test.slow.show',
  nobody: 'test.nobody.show',
  broken: 'test.broken.show',
  crashing: 'test.crashing.show',
  conflict: 'test.conflict.create',
  file: 'test.widgets.file',
  export: 'test.widgets.export',
} as const;

export class WidgetListQuery extends PageQuery {
  @IsOptional() @IsIn(['name', '-name'])
  sort?: string;

  @IsOptional() @QueryArray() @IsArray() @IsIn(['counts', 'owner'], { each: true })
  includes?: string[];

  @IsOptional() @QueryInt() @IsInt() @Min(0)
  min_size?: number;
}

export class WidgetInput {
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @IsOptional() @IsInt() @Min(0)
  size?: number;
}

export class WidgetTag {
  @IsString() @IsNotEmpty()
  label: string;
}

export class CreateWidgetBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => WidgetInput)
  widget: WidgetInput;

  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => WidgetTag)
  tags?: WidgetTag[];
}

export class ExportParams {
  @QueryInt() @IsInt() @Min(1)
  widget_id: number;
}

export const WIDGET_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'string' }, name: { type: 'string' }, size: { type: 'integer' } },
};

const widgets = { kind: 'envelope', key: 'widgets', item: WIDGET_SCHEMA, linked: { owners: { type: 'object' } } } as const;

export const WIDGET_ROUTES: RouteDefinition[] = [
  defineRoute({ method: 'GET', path: '/api/author/widgets', subject: WIDGET_SUBJECTS.list, status: 200, paged: true, summary: 'List widgets', query: WidgetListQuery, response: widgets }),
  defineRoute({ method: 'GET', path: '/api/author/widgets/:id', subject: WIDGET_SUBJECTS.show, status: 200, summary: 'Show a widget', params: IdParams, response: widgets }),
  defineRoute({ method: 'POST', path: '/api/author/widgets', subject: WIDGET_SUBJECTS.create, status: 201, summary: 'Create a widget', body: CreateWidgetBody, response: widgets, errors: [422] }),
  defineRoute({ method: ['PATCH', 'PUT'], path: '/api/author/widgets/:id', subject: WIDGET_SUBJECTS.update, status: 200, summary: 'Update a widget', params: IdParams, body: CreateWidgetBody, response: widgets }),
  defineRoute({ method: 'DELETE', path: '/api/author/widgets/:id', subject: WIDGET_SUBJECTS.delete, status: 204, summary: 'Delete a widget', params: IdParams, response: { kind: 'empty' } }),
  defineRoute({ method: 'POST', path: '/api/author/widgets/:id/sync', subject: WIDGET_SUBJECTS.sync, status: 200, summary: 'Sync a widget', params: IdParams, roles: ['support'], response: { kind: 'object', key: 'widget', item: WIDGET_SCHEMA } }),
  defineRoute({ method: 'GET', path: '/api/admin/secrets', subject: WIDGET_SUBJECTS.secrets, status: 200, summary: 'Admins only', response: { kind: 'object', item: { type: 'object' } } }),
  defineRoute({ method: 'GET', path: '/api/learner/slow', subject: WIDGET_SUBJECTS.slow, status: 200, summary: 'Answers late', response: { kind: 'object', item: { type: 'object' } } }),
  defineRoute({ method: 'GET', path: '/api/learner/nobody', subject: WIDGET_SUBJECTS.nobody, status: 200, summary: 'Nobody serves this', response: { kind: 'object', item: { type: 'object' } } }),
  defineRoute({ method: 'GET', path: '/api/learner/broken', subject: WIDGET_SUBJECTS.broken, status: 200, summary: 'Answers a 500', response: { kind: 'object', item: { type: 'object' } } }),
  defineRoute({ method: 'GET', path: '/api/learner/crashing', subject: WIDGET_SUBJECTS.crashing, status: 200, summary: 'Handler throws', response: { kind: 'object', item: { type: 'object' } } }),
  defineRoute({ method: 'POST', path: '/api/learner/conflicts', subject: WIDGET_SUBJECTS.conflict, status: 201, summary: 'Answers a 409', response: { kind: 'empty' }, errors: [409] }),
  defineRoute({ method: 'GET', path: '/api/downloads/:id/file', subject: WIDGET_SUBJECTS.file, status: 302, summary: 'Redirect to a file', params: IdParams, response: { kind: 'redirect' } }),
  defineRoute({ method: 'GET', path: '/api/admin/widgets/:widget_id/export', subject: WIDGET_SUBJECTS.export, status: 200, summary: 'A CSV file', params: ExportParams, response: { kind: 'file', contentType: 'text/csv' } }),
];
