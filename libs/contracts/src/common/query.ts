import { Transform, type TransformFnParams } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * Query strings arrive as text; these turn them into the types the DTO declares, leaving bad text for the
 * validator to reject. An integer beyond 2^53 stays text (so it is a 400): as a number it would be rounded,
 * and a page offset computed from it would overflow the database's integers.
 */
export const QueryInt = () =>
  Transform(({ value }: TransformFnParams) => (typeof value === 'string' && /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value));

export const QueryBool = () =>
  Transform(({ value }: TransformFnParams) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value));

/** `includes[]=a&includes[]=b`, `includes=a,b` and a single `includes=a` all become `['a','b']`. */
export const QueryArray = () =>
  Transform(({ value }: TransformFnParams) =>
    value === undefined ? undefined : (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])).filter((v) => v !== ''),
  );

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;

export class PageQuery {
  @IsOptional() @QueryInt() @IsInt() @Min(1)
  page?: number;

  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(MAX_PER_PAGE)
  per_page?: number;
}

/** Offset and limit for a validated page query. */
export function pageWindow(query: PageQuery): { skip: number; take: number; page: number; perPage: number } {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  return { skip: (page - 1) * perPage, take: perPage, page, perPage };
}

/** Ids are Postgres `integer`s: anything larger can name no row, and must be a 400 rather than a database error. */
export const MAX_ID = 2_147_483_647;

/** Path parameter `:id` that must be a positive integer. */
export class IdParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}
