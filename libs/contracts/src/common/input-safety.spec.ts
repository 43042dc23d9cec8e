import { MAX_INPUT_DEPTH, unsafeInput } from './input-safety.js';

describe('unsafeInput', () => {
  it('accepts ordinary JSON, emoji included', () => {
    expect(unsafeInput({ users: [{ uid: 'a', first_name: 'Zoë 😀', tags: ['x'], n: 1, ok: true, none: null }] })).toEqual([]);
  });

  it('names NUL characters and lone surrogates in values and keys, at their path', () => {
    expect(unsafeInput({ users: [{ first_name: 'a\u0000' }], search: '\ud800x' })).toEqual([
      { field: 'users[0].first_name', message: expect.stringContaining('NUL') },
      { field: 'search', message: expect.stringContaining('surrogate') },
    ]);
    expect(unsafeInput({ ['k\u0000']: 1 })).toHaveLength(1);
  });

  it('refuses prototype names as keys at any depth', () => {
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(unsafeInput(JSON.parse(`{"channels": {"${key}": true}}`))).toEqual([{ field: `channels.${key}`, message: expect.stringContaining('reserved name') }]);
    }
  });

  it('stops at MAX_INPUT_DEPTH without walking the rest', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(unsafeInput({ a: deep })).toEqual([{ field: expect.any(String), message: expect.stringContaining(`${MAX_INPUT_DEPTH}`) }]);
    let fine: unknown = 'leaf';
    for (let i = 0; i < MAX_INPUT_DEPTH - 2; i++) fine = [fine];
    expect(unsafeInput({ a: fine })).toEqual([]);
  });
});
