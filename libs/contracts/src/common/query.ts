import { Transform, type TransformFnParams } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import { documented } from './documented.js';

/**
 * Query strings arrive as text; these turn them into the types the DTO declares, leaving bad text for the
 * validator to reject. An integer beyond 2^53 stays text (so it is a 400): as a number it would be rounded,
 * and a page offset computed from it would overflow the database's integers.
 */
export const QueryInt = () =>
  Transform(({ value }: TransformFnParams) => (typeof value === 'string' && /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value));

const BOOLEAN_TEXT: Record<string, boolean> = { true: true, t: true, '1': true, on: true, false: false, f: false, '0': false, off: false };

/**
 * A boolean as clients write it in text, any case: `true`/`false`, `1`/`0`, and the other spellings of
 * Rails' list of false values and their opposites (`t`/`f`, `on`/`off`; Python's `requests` sends `True`).
 * Undefined for anything else (Rails read any other text as true, `no` included: here it is refused).
 */
export const booleanOfText = (text: string): boolean | undefined => {
  const key = text.toLowerCase();
  return Object.hasOwn(BOOLEAN_TEXT, key) ? BOOLEAN_TEXT[key] : undefined;
};

export const QueryBool = () => Transform(({ value }: TransformFnParams) => (typeof value === 'string' ? (booleanOfText(value) ?? value) : value));

/** `ids[]=a&ids[]=b` (repeated), `ids=a,b` and a single `ids=a` as the list `['a', 'b']`, empty parts left out. */
export const commaSeparated = (value: unknown): unknown[] =>
  (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])).filter((v) => v !== '');

/** `includes[]=a&includes[]=b`, `includes=a,b` and a single `includes=a` all become `['a','b']`. */
export const QueryArray = () => Transform(({ value }: TransformFnParams) => (value === undefined ? undefined : commaSeparated(value)));

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;

/**
 * Where a keyset page starts: the page's number (for the prev and last links) and the sort key of the last
 * row of the page before it. It travels as `page=bookmark:<base64url JSON>` in the `next` link, as Canvas
 * does, so following `next` costs the same at any depth; clients treat it as opaque.
 */
export interface Bookmark {
  page: number;
  after: Array<string | number>;
}

export const BOOKMARK_PREFIX = 'bookmark:';
const BOOKMARK_TEXT = /^bookmark:[A-Za-z0-9_-]{1,400}$/;

export function encodeBookmark(bookmark: Bookmark): string {
  return `${BOOKMARK_PREFIX}${Buffer.from(JSON.stringify([bookmark.page, ...bookmark.after])).toString('base64url')}`;
}

export function decodeBookmark(text: string): Bookmark | undefined {
  if (!BOOKMARK_TEXT.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text.slice(BOOKMARK_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length < 2) return undefined;
  const [page, ...after] = parsed as unknown[];
  if (!isPageNumber(page)) return undefined;
  if (!after.every((v) => (typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'string' && v.length <= 255))) return undefined;
  return { page, after: after as Array<string | number> };
}

/** Pages are counted in Postgres integers: a larger page can hold no row. */
export const MAX_PAGE = 2_147_483_647;
const isPageNumber = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PAGE;

/** `page`: a page number, or the bookmark a `next` link carries. */
const IsPage = () =>
  documented(
    { anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_PAGE }, { type: 'string', pattern: `^${BOOKMARK_PREFIX}[A-Za-z0-9_-]+$`, description: 'the bookmark a `next` link carries' }] },
    ValidateBy({
      name: 'isPage',
      validator: {
        validate: (value: unknown) => isPageNumber(value) || (typeof value === 'string' && decodeBookmark(value) !== undefined),
        defaultMessage: () => `page must be a page number from 1 to ${MAX_PAGE} or the bookmark of a Link header`,
      },
    }),
  );

export class PageQuery {
  @IsOptional() @QueryInt() @IsPage()
  page?: number | string;

  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(MAX_PER_PAGE)
  per_page?: number;
}

export interface PageWindow {
  /** Offset of the page, for services that page by offset (a bookmark's page number counts too). */
  skip: number;
  take: number;
  page: number;
  perPage: number;
  /** Sort key of the last row before this page, when the request carries a bookmark: keyset paging. */
  after?: Array<string | number>;
}

/** Offset, limit and, for a bookmark, the keyset start of a validated page query. */
export function pageWindow(query: PageQuery, defaultPerPage = DEFAULT_PER_PAGE): PageWindow {
  const bookmark = typeof query.page === 'string' ? decodeBookmark(query.page) : undefined;
  const page = bookmark?.page ?? (typeof query.page === 'number' ? query.page : 1);
  const perPage = query.per_page ?? defaultPerPage;
  return { skip: (page - 1) * perPage, take: perPage, page, perPage, ...(bookmark ? { after: bookmark.after } : {}) };
}

/** Ids are Postgres `integer`s: anything larger can name no row, and must be a 400 rather than a database error. */
export const MAX_ID = 2_147_483_647;

/** A UUID's text, to build patterns from (a lock id, a download's id, a stored file's key). */
export const UUID_PATTERN = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** A whole string that is a UUID, in either case. */
export const UUID = new RegExp(`^${UUID_PATTERN}$`, 'i');

/** Path parameter `:id` that must be a positive integer. */
export class IdParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

/** A list's deleted-record parameters (spec: `only_deleted`, `with_deleted`, and the `deleted_*` bounds). */
export interface DeletedFilters {
  only_deleted?: boolean;
  with_deleted?: boolean;
  deleted_after?: string;
  deleted_before?: string;
}

/**
 * Whether a list asks for deleted records: `with_deleted`, `only_deleted`, or a bound on the deletion time
 * (only a deleted record has one, so `deleted_after=T` alone means "deleted since T"). Such a list shows
 * each record's `deleted_at`; others leave it out.
 */
export const asksForDeleted = (q: DeletedFilters): boolean =>
  q.only_deleted === true || q.with_deleted === true || q.deleted_after !== undefined || q.deleted_before !== undefined;
