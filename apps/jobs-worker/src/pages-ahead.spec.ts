import { pagesAhead } from './pages-ahead.js';

interface Page {
  n: number;
  next?: number;
}

describe('pagesAhead', () => {
  it('yields every page in order, asking for the next one before the current is handled', async () => {
    const asked: (number | undefined)[] = [];
    const ask = async (after?: number): Promise<Page> => {
      asked.push(after);
      const n = (after ?? 0) + 1;
      return n < 3 ? { n, next: n } : { n };
    };
    const seen: number[] = [];
    for await (const page of pagesAhead(ask)) {
      // The page after this one is already asked for while this one is handled.
      expect(asked.length).toBe(page.next === undefined ? page.n : page.n + 1);
      seen.push(page.n);
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(asked).toEqual([undefined, 1, 2]);
  });

  it('surfaces a failing page when it is reached, and nothing unhandled when the reader stops first', async () => {
    const ask = async (after?: number): Promise<Page> => {
      if (after === 1) throw new Error('page 2 failed');
      return { n: 1, next: 1 };
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of pagesAhead(ask)) seen.push(page.n);
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([1]);

    // Stopping after the first page leaves page 2's failure unobserved and harmless.
    for await (const page of pagesAhead(ask)) {
      expect(page.n).toBe(1);
      break;
    }
  });
});
