import { buildParams, compileCoercer, keySegments, ParamsError, rootOf, type SchemaResolver } from './rails-params.js';

const pairs = (search: string): [string, string][] => [...new URLSearchParams(search)];
const errorsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ParamsError) return err.errors;
    throw err;
  }
  throw new Error('no ParamsError');
};

describe('keySegments', () => {
  it('splits bracketed keys', () => {
    expect(keySegments('a')).toEqual(['a']);
    expect(keySegments('a[b][0][c]')).toEqual(['a', 'b', '0', 'c']);
    expect(keySegments('a[]')).toEqual(['a', '']);
    expect(keySegments('a[][b]')).toEqual(['a', '', 'b']);
  });

  it('leaves what is not bracket syntax to be a literal name', () => {
    for (const key of ['a[b', 'a[b]c', '[a]', 'a[b[c]]', '']) expect(keySegments(key)).toBeUndefined();
    expect(keySegments('a]b')).toEqual(['a]b']);
    expect(rootOf('course_template[description]')).toBe('course_template');
    expect(rootOf('[x]')).toBe('[x]');
  });
});

describe('buildParams', () => {
  it('builds nested objects, indexed entries and appended lists', () => {
    expect(buildParams(pairs('course_template[description]=New&course_template[title]=T'))).toEqual({ course_template: { description: 'New', title: 'T' } });
    expect(buildParams(pairs('enrollments[0][end_at]=2026-12-01&enrollments[0][state]=active&enrollments[1][state]=done'))).toEqual({
      enrollments: { 0: { end_at: '2026-12-01', state: 'active' }, 1: { state: 'done' } },
    });
    expect(buildParams(pairs('roles[]=admin&roles[]=author&name=x'))).toEqual({ roles: ['admin', 'author'], name: 'x' });
  });

  it('starts a new element of a[][k] when the last one already has k (Rack’s rule)', () => {
    expect(buildParams(pairs('users[][uid]=a&users[][email]=a@x&users[][uid]=b'))).toEqual({ users: [{ uid: 'a', email: 'a@x' }, { uid: 'b' }] });
  });

  it('makes a repeated plain key a list', () => {
    expect(buildParams(pairs('a=1&a=2&a=3'))).toEqual({ a: ['1', '2', '3'] });
  });

  it('refuses keys that give one name two shapes, naming each', () => {
    expect(errorsOf(() => buildParams(pairs('a=1&a[b]=2')))).toEqual([{ field: 'a[b]', message: expect.stringContaining('object') }]);
    expect(errorsOf(() => buildParams(pairs('a[b]=2&a=1')))).toEqual([{ field: 'a', message: expect.stringContaining('value') }]);
    expect(errorsOf(() => buildParams(pairs('a[]=1&a[0]=2')))).toEqual([{ field: 'a[0]', message: expect.stringContaining('list') }]);
    expect(errorsOf(() => buildParams(pairs('a[]=1&a[][b]=2')))).toHaveLength(1);
    // Whichever comes first, values and objects never share a list (a list's last item speaks for all of it).
    expect(errorsOf(() => buildParams(pairs('a[][b]=2&a[]=1')))).toEqual([{ field: 'a[]', message: expect.stringContaining('mixes') }]);
    expect(errorsOf(() => buildParams(pairs('a[][b]=2&a=1')))).toEqual([{ field: 'a', message: expect.stringContaining('value') }]);
    expect(errorsOf(() => buildParams(pairs('a=1&a=2&a[][b]=3')))).toEqual([{ field: 'a[][b]', message: expect.stringContaining('mixes') }]);
    expect(errorsOf(() => buildParams(pairs('a=1&a[]=2&a[][b]=3&a=4')))).toHaveLength(2);
  });

  it('appends to a list of many thousand values', () => {
    const built = buildParams(Array.from({ length: 100_000 }, (_, i): [string, string] => [i % 2 ? 'a' : 'a[]', String(i)]));
    expect(built.a).toHaveLength(100_000);
    expect((built.a as string[]).at(-1)).toBe('99999');
  });

  it('refuses prototype names and excessive depth, and keeps prototypes clean', () => {
    expect(errorsOf(() => buildParams(pairs('a[__proto__][x]=1&constructor[prototype][y]=2')))).toHaveLength(2);
    expect(errorsOf(() => buildParams([[`a${'[b]'.repeat(40)}`, 'x']]))).toEqual([{ field: expect.any(String), message: expect.stringContaining('deeper') }]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('compileCoercer', () => {
  const schemas: Record<string, object> = {
    Item: { type: 'object', properties: { title: { type: 'string' }, position: { type: 'integer' }, score: { type: 'number' }, done: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } } },
    Tree: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } },
  };
  const resolve: SchemaResolver = (ref) => schemas[ref.replace('#/components/schemas/', '')] as Record<string, unknown> | undefined;
  const body = {
    type: 'object',
    properties: {
      item: { $ref: '#/components/schemas/Item' },
      items: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
      flags: { type: 'array', items: { type: 'boolean' } },
      level: { enum: [1, 2, 3] },
      tree: { $ref: '#/components/schemas/Tree' },
      channels: { type: 'object', additionalProperties: { type: 'boolean' } },
      anything: {},
    },
  };
  const coerce = compileCoercer(body, resolve);
  const run = (search: string) => coerce(buildParams(pairs(search)));

  it('types fields as the schema declares them, text and dates staying text', () => {
    expect(run('item[title]=007&item[position]=3&item[score]=2.5&item[done]=true&item[tags][]=x')).toEqual({
      item: { title: '007', position: 3, score: 2.5, done: true, tags: ['x'] },
    });
    expect(run('item[done]=0&level=2&anything=12')).toEqual({ item: { done: false }, level: 2, anything: '12' });
  });

  it('turns indexed entries into lists in index order, and leaves a single plain value of a list field as text', () => {
    expect(run('items[1][title]=b&items[0][title]=a&items[0][position]=1')).toEqual({ items: [{ title: 'a', position: 1 }, { title: 'b' }] });
    expect(run('items[5][title]=b&items[0][title]=a')).toEqual({ items: [{ title: 'a' }, { title: 'b' }] });
    expect(run('flags=true')).toEqual({ flags: 'true' });
    expect(run('flags[]=true')).toEqual({ flags: [true] });
    expect(run('flags[0]=true&flags[1]=false')).toEqual({ flags: [true, false] });
  });

  it('follows references, recursive ones included, and maps of typed values', () => {
    expect(run('tree[name]=r&tree[children][0][name]=c&tree[children][0][children][0][name]=g')).toEqual({
      tree: { name: 'r', children: [{ name: 'c', children: [{ name: 'g' }] }] },
    });
    expect(run('channels[email]=true&channels[slack]=false')).toEqual({ channels: { email: true, slack: false } });
  });

  it('leaves text that is not of the declared type for the validator to refuse', () => {
    expect(run('item[position]=3.5&item[done]=maybe&item[score]=1e999')).toEqual({ item: { position: '3.5', done: 'maybe', score: '1e999' } });
    expect(run(`item[position]=${'9'.repeat(20)}`)).toEqual({ item: { position: '9'.repeat(20) } });
    expect(run('items[a][title]=x')).toEqual({ items: { a: { title: 'x' } } });
  });

  it('reads indexed entries as lists where no schema says otherwise', () => {
    expect(compileCoercer(undefined, resolve)(buildParams(pairs('a[0]=x&a[1]=y&b[c]=z')))).toEqual({ a: ['x', 'y'], b: { c: 'z' } });
  });

  describe('of a JSON body', () => {
    const json = compileCoercer(body, resolve, true);

    it('types text values as the schema declares them, and leaves values of their type as they are', () => {
      const sent = { item: { title: '007', position: '3', score: '2.5', done: 'false', tags: ['1'] }, items: [{ position: 4, done: true }, { position: '5' }], level: '2', channels: { email: '1' }, anything: '12' };
      expect(json(sent as never)).toEqual({
        item: { title: '007', position: 3, score: 2.5, done: false, tags: ['1'] }, items: [{ position: 4, done: true }, { position: 5 }], level: 2, channels: { email: true }, anything: '12',
      });
    });

    it('keeps the structure as sent: objects with index keys stay objects, values outside the schema stay as they are', () => {
      expect(json({ items: { 0: { position: '1' } }, tree: { children: 'none' }, unknown: { position: '1' } } as never)).toEqual({ items: { 0: { position: '1' } }, tree: { children: 'none' }, unknown: { position: '1' } });
      expect(compileCoercer(undefined, resolve, true)({ a: { 0: 'x' } } as never)).toEqual({ a: { 0: 'x' } });
    });

    it('leaves text that is not of the declared type, and nulls, for the validator', () => {
      expect(json({ item: { position: '3.5', done: 'maybe', score: null } } as never)).toEqual({ item: { position: '3.5', done: 'maybe', score: null } });
    });

    it("reads booleans in Rails' spellings, any case, and a safe integer sent for a text field as its text", () => {
      const read = (done: unknown) => (json({ item: { done } } as never) as { item: { done: unknown } }).item.done;
      expect(['True', 'TRUE', 't', 'on', '1'].map(read)).toEqual(Array(5).fill(true));
      expect(['False', 'f', 'OFF', '0'].map(read)).toEqual(Array(4).fill(false));
      expect(['yes', 'no'].map(read)).toEqual(['yes', 'no']);
      expect(json({ item: { title: 12345, tags: [7, 'x'] } } as never)).toEqual({ item: { title: '12345', tags: ['7', 'x'] } });
      // Rounded by JSON.parse already: left for the validator to refuse rather than stored wrong.
      expect(json({ item: { title: 2 ** 60, position: 3 } } as never)).toEqual({ item: { title: 2 ** 60, position: 3 } });
    });
  });
});
