/**
 * How big a list is: its exact total, or past `COUNT_CAP` rows only whether a page follows this one.
 * Counting every row of a large list costs a scan of all of them on every page; Canvas likewise drops
 * the `last` link when the count is too expensive.
 */
export type ListSize = number | { more: boolean };

/** A handler result that sets more than the body: another success status, a paging total, headers. */
export class Reply {
  readonly total?: number;
  readonly more?: boolean;

  constructor(
    readonly body: unknown,
    readonly status?: number,
    size?: ListSize,
    readonly headers?: Record<string, string>,
    /** Bookmark of the following page (keyset paging), for the gateway's `next` link. */
    readonly next?: string,
    /** The body holds a secret shown once (`RpcReply.secret`). */
    readonly secret?: boolean,
  ) {
    if (typeof size === 'number') this.total = size;
    else if (size) this.more = size.more;
  }
}

export const reply = (body: unknown, options: { status?: number; total?: number; headers?: Record<string, string>; secret?: boolean } = {}) =>
  new Reply(body, options.status, options.total, options.headers, undefined, options.secret);

/** A page of records with the list's size the gateway needs for its `Link` header, and the next page's bookmark if any. */
export const paged = (body: unknown, size: ListSize, next?: string) => new Reply(body, undefined, size, undefined, next);

export const noContent = () => new Reply(undefined, 204);
