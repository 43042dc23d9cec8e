import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ROUTES } from '../routes/index.js';
import type { DtoClass } from '../routes/route.js';
import { fastValidator } from './compiled-validator.js';
import { MAX_FIELD_ERRORS, MAX_OBJECT_KEYS, validateInput } from './validate.js';

/** class-transformer and class-validator alone: the verdict the fast path must agree with. */
async function libraryVerdict(cls: DtoClass, plain: object): Promise<object | undefined> {
  const instance = plainToInstance(cls, plain);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  return errors.length === 0 ? instance : undefined;
}

/** Same class at every level, same own keys and values. */
function sameInstance(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameInstance((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Inputs of every kind: valid and not, typed as a query string or as JSON would type them. */
const SAMPLES: object[] = [
  {},
  { id: '5' },
  { id: '0' },
  { id: 'abc' },
  { id: 'uid:jane' },
  { page: '2', per_page: '10' },
  { page: '0' },
  { per_page: '5000' },
  { includes: ['name'] },
  { includes: 'name,id' },
  { includes: ['nope'] },
  { search: 'ann' },
  { with_deleted: 'true', only_deleted: '0' },
  { async: 'yes' },
  { unknown: 1 },
  { constructor: 'x' },
  { toString: 'x' },
  { custom_fields: [{ name: 'Region' }] },
  { custom_fields: [{ name: '' }] },
  { custom_fields: [{ name: 'a', extra: true }] },
  { custom_fields: ['junk'] },
  { custom_field: { name: 'Renamed' } },
  { users: [{ uid: 'jane', first_name: 'Jane', email: 'jane@example.com', custom_fields: [{ id: '3', value: 'x' }, { id: '4', value: null }] }] },
  { users: [{ uid: 'a' }, { uid: 'b c', roles: ['admin'] }, 'junk'] },
  { user: { first_name: null, locale: 'en-US', manager_id: 'uid:boss', hire_date: '2024-02-29' } },
  { user: { hire_date: '2025-02-30' } },
  { roles: ['admin', 'learner'] },
  { roles: ['root'] },
  { api_token: { user_id: 'uid:jane', expires_at: '2030-01-01T00:00:00Z' } },
  { group: { name: 'Group', parent_id: null } },
  { token: 'lms_abc' },
];

const dtos = [...new Set(ROUTES.flatMap((route) => [route.params, route.query, route.body]).filter((cls): cls is DtoClass => cls !== undefined))];

describe('fastValidator', () => {
  it('compiles most DTOs of the contract table', () => {
    const compiled = dtos.filter((cls) => fastValidator(cls) !== undefined);
    expect(compiled.length).toBeGreaterThan(dtos.length / 2);
  });

  it('takes the fast path for ordinary valid requests', () => {
    const accepts = (path: string, part: 'params' | 'query' | 'body', plain: object) => {
      const route = ROUTES.find((r) => r.path === path && r[part] !== undefined);
      return fastValidator(route![part]!)?.(plain as Record<string, unknown>) !== undefined;
    };
    expect(accepts('/api/author/custom_fields/:id', 'params', { id: '5' })).toBe(true);
    expect(accepts('/api/author/custom_fields', 'query', { includes: ['name'], page: '2' })).toBe(true);
    expect(accepts('/api/author/custom_fields', 'body', { custom_fields: [{ name: 'Region' }] })).toBe(true);
    expect(accepts('/api/admin/users', 'query', { per_page: '50', search: 'ann' })).toBe(true);
    expect(accepts('/api/admin/users', 'body', { users: [{ uid: 'jane', email: 'jane@example.com', custom_fields: [{ id: '3', value: null }] }] })).toBe(true);
  });

  it.each(dtos.map((cls) => [cls.name, cls] as const))('%s: accepts only what the libraries accept, building the same instance', async (_name, cls) => {
    const fast = fastValidator(cls);
    for (const sample of SAMPLES) {
      const expected = await libraryVerdict(cls, sample);
      const got = fast?.(sample as Record<string, unknown>);
      if (got !== undefined) {
        expect({ sample, accepted: expected !== undefined }).toEqual({ sample, accepted: true });
        expect({ sample, same: sameInstance(got, expected) }).toEqual({ sample, same: true });
      }
      const result = await validateInput(cls, sample);
      expect({ sample, ok: result.ok }).toEqual({ sample, ok: expected !== undefined });
    }
  });
});

describe('validateInput bounds', () => {
  const route = ROUTES.find((r) => r.body !== undefined && r.method === 'POST');

  it('refuses an object with too many keys at once, with one error naming it', async () => {
    const body = Object.fromEntries(Array.from({ length: 110_000 }, (_, i) => [`k${i}`, 1]));
    const result = await validateInput(route!.body!, body);
    expect(result).toEqual({ ok: false, errors: [{ field: 'body', message: `has 110000 fields; at most ${MAX_OBJECT_KEYS} are accepted` }] });
  });

  it('finds an oversized object nested anywhere', async () => {
    const inner = Object.fromEntries(Array.from({ length: MAX_OBJECT_KEYS + 1 }, (_, i) => [`k${i}`, 1]));
    const result = await validateInput(route!.body!, { custom_fields: [{ name: 'a' }, inner] }, 'body');
    expect(result).toEqual({ ok: false, errors: [{ field: 'body.custom_fields[1]', message: `has ${MAX_OBJECT_KEYS + 1} fields; at most ${MAX_OBJECT_KEYS} are accepted` }] });
  });

  it(`lists at most ${MAX_FIELD_ERRORS} field errors`, async () => {
    const body = Object.fromEntries(Array.from({ length: MAX_OBJECT_KEYS }, (_, i) => [`k${i}`, 1]));
    const result = await validateInput(route!.body!, body);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(MAX_FIELD_ERRORS);
      expect(result.errors[0]).toEqual({ field: 'k0', message: 'unknown field k0' });
    }
  });
});
