/** A handler result that sets more than the body: another success status, a paging total, headers. */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly status?: number,
    readonly total?: number,
    readonly headers?: Record<string, string>,
    /** Bookmark of the following page (keyset paging), for the gateway's `next` link. */
    readonly next?: string,
  ) {}
}

export const reply = (body: unknown, options: { status?: number; total?: number; headers?: Record<string, string> } = {}) =>
  new Reply(body, options.status, options.total, options.headers);

/** A page of records with the total the gateway needs for its `Link` header, and the next page's bookmark if any. */
export const paged = (body: unknown, total: number, next?: string) => new Reply(body, undefined, total, undefined, next);

export const noContent = () => new Reply(undefined, 204);
