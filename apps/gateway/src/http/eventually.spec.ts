import { andThen, endHook } from './eventually.js';

describe('andThen', () => {
  it('goes on at once with a value at hand, and after the promise with a promise', async () => {
    expect(andThen(2, (n) => n + 1)).toBe(3);
    const later = andThen(Promise.resolve(2), (n) => n + 1);
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toBe(3);
    await expect(andThen(2, (n) => Promise.resolve(n * 10))).resolves.toBe(20);
  });
});

describe('endHook', () => {
  const recorder = () => {
    const calls: string[] = [];
    return { calls, finish: (value: string) => calls.push(`finish ${value}`), done: (error: Error) => calls.push(`done ${error.message}`) };
  };

  it('finishes at once with a value at hand', () => {
    const { calls, finish, done } = recorder();
    endHook('principal', finish, done);
    expect(calls).toEqual(['finish principal']);
  });

  it('finishes after a promise, and hands its failure to done', async () => {
    const { calls, finish, done } = recorder();
    endHook(Promise.resolve('principal'), finish, done);
    endHook(Promise.reject(new Error('identity unreachable')), finish, done);
    expect(calls).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['finish principal', 'done identity unreachable']);
  });
});
