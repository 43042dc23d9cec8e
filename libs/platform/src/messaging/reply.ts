/** A handler result that sets more than the body: another success status, a paging total, headers. */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly status?: number,
    readonly total?: number,
    readonly headers?: Record<string, string>,
  ) {}
}

export const reply = (body: unknown, options: { status?: number; total?: number; headers?: Record<string, string> } = {}) =>
  new Reply(body, options.status, options.total, options.headers);

/** A page of records with the total the gateway needs for its `Link` header. */
export const paged = (body: unknown, total: number) => new Reply(body, undefined, total);

export const noContent = () => new Reply(undefined, 204);
