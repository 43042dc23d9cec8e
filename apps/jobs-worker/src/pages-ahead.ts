/**
 * The pages of a paged source, one asked ahead: the next page is asked for as soon as a page arrives, so its
 * owner reads it while this one is written (never more than one ahead, so one page is held at a time).
 * `ask()` is the first page; `ask(page.next)` the one after; a page without `next` is the last.
 */
export async function* pagesAhead<P extends { next?: C }, C>(ask: (after?: C) => Promise<P>): AsyncGenerator<P> {
  let next: Promise<P> | undefined = ask();
  try {
    while (next) {
      const current: P = await next;
      next = current.next !== undefined ? ask(current.next) : undefined;
      // A failure of the page asked ahead surfaces when it is awaited; until then it must not count as unhandled.
      next?.catch(() => undefined);
      yield current;
    }
  } finally {
    // Left early (the reader failed or stopped): the page asked ahead is not wanted, nor its failure.
    next?.catch(() => undefined);
  }
}
