import fc from 'fast-check';
import { resolveSchema, type Schema, type SchemaComponents } from './json-schema-sample.js';

/**
 * Values a careless client or an attacker sends where a string, a number or an object is expected: each
 * one a known way to break a parser, a validator or a database driver.
 */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '😀'.repeat(40),
  'e\u0301\u200b\u202e',
  'x'.repeat(256),
  'x'.repeat(5000),
  '__proto__',
  'constructor',
  'prototype',
  "'; DROP TABLE x; --",
  '%00',
  '../../etc/passwd',
  '${7*7}{{7*7}}',
  '<script>alert(1)</script>',
  'uid:',
  'uid:\u0000',
  '1e400',
  '-0',
  'NaN',
];

export const HOSTILE_NUMBERS = [0, -1, 1.5, -2147483649, 2147483648, 2 ** 53 + 2, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER];

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** JSON nested `depth` deep, as text (an object that deep cannot always be built, then serialised). */
export const deepJson = (depth: number) => `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;

/** Anything of another type than the schema wants, or nothing it could accept. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': 1 }),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  );
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, 300) : 60;
  const formats: Record<string, fc.Arbitrary<string>> = {
    email: fc.emailAddress(),
    date: fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    'date-time': fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
    uri: fc.webUrl(),
    url: fc.webUrl(),
    uuid: fc.uuid(),
  };
  const own = typeof schema.format === 'string' && formats[schema.format] ? formats[schema.format] : fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
  return fc.oneof({ weight: 4, arbitrary: own }, { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: Math.max(minLength, maxLength) }) });
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
}

/**
 * Values shaped by a JSON Schema (the gateway's OpenAPI components): mostly what it accepts, and at every
 * level, now and then, a hostile value in its place, an unknown or prototype key, a missing required one.
 * `hostility` is the weight of the hostile branch against 10 for the well-formed one.
 */
export function arbitraryOf(schema: Schema | undefined, components: SchemaComponents, hostility = 1, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveSchema(schema, components);
  const wellFormed = shapedBy(s, components, hostility, depth);
  return hostility > 0 ? fc.oneof({ weight: 10, arbitrary: wellFormed }, { weight: hostility, arbitrary: hostileValue() }) : wellFormed;
}

function shapedBy(s: Schema, components: SchemaComponents, hostility: number, depth: number): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) return fc.oneof(...options.map((o) => arbitraryOf(o as Schema, components, hostility, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object':
      return objectArbitrary(s, components, hostility, depth);
    case 'array': {
      const minLength = typeof s.minItems === 'number' ? Math.min(s.minItems, 5) : 0;
      return fc.array(arbitraryOf(s.items as Schema, components, hostility, depth + 1), { minLength, maxLength: Math.max(minLength, 4) });
    }
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringArbitrary(s);
    default:
      return s.properties ? objectArbitrary(s, components, hostility, depth) : fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArbitrary(s: Schema, components: SchemaComponents, hostility: number, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = ((s.required ?? []) as string[]).filter((name) => properties[name]);
  const model = Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, arbitraryOf(p, components, hostility, depth + 1)]));
  const record = fc.record(model, { requiredKeys: required });
  if (hostility === 0) return record;
  const extra = fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 12 })), hostileValue(), { maxKeys: 2 });
  return fc.oneof(
    { weight: 8, arbitrary: record },
    // Unknown and prototype keys beside the known ones (mass assignment, prototype pollution).
    { weight: 1, arbitrary: fc.tuple(record, extra).map(([known, more]) => withOwnKeys(known as Record<string, unknown>, more)) },
    // A required key left out.
    { weight: 1, arbitrary: record.map((value) => withoutKey(value as Record<string, unknown>, required[0])) },
  );
}

/** Adds keys as own properties (`__proto__` included), as JSON.parse would make them. */
function withOwnKeys(target: Record<string, unknown>, more: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(more)) Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
  return out;
}

function withoutKey(value: Record<string, unknown>, key: string | undefined): Record<string, unknown> {
  if (key === undefined) return value;
  const { [key]: _dropped, ...rest } = value;
  return rest;
}
