import { randomBytes } from 'node:crypto';

/** A JSON Schema (2020-12, as the gateway's OpenAPI document carries them). */
export type Schema = Record<string, unknown>;

/** The OpenAPI document's `components.schemas`, for `$ref`s. */
export type SchemaComponents = Record<string, Schema>;

const REF_PREFIX = '#/components/schemas/';

/** Follows `$ref`s into the components; an unknown reference is an open schema. */
export function resolveSchema(schema: Schema | undefined, components: SchemaComponents): Schema {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops++) {
    const name = current.$ref.startsWith(REF_PREFIX) ? current.$ref.slice(REF_PREFIX.length) : '';
    current = components[name] ?? {};
  }
  return current;
}

const unique = () => randomBytes(4).toString('hex');

function sampleString(schema: Schema): string {
  switch (schema.format) {
    case 'email':
      return `s${unique()}@example.test`;
    case 'date':
      return '2031-01-15';
    case 'date-time':
      return '2031-01-15T10:00:00Z';
    case 'uri':
    case 'url':
      return `https://example.test/${unique()}`;
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
  const text = `s${unique()}`;
  return (text.length < min ? text.padEnd(min, 'x') : text).slice(0, Math.max(max, 1));
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
  const value = Math.min(Math.max(min, 1), max);
  return integer ? Math.ceil(value) : value;
}

/**
 * The smallest value a schema accepts, as far as a schema can say: required properties only, one item
 * per required array, the first enum member (or example), a fresh string (so unique names do not collide). Patterns
 * and checks the schema does not express (references to other records) are beyond it: callers override.
 */
export function sampleOf(schema: Schema | undefined, components: SchemaComponents, depth = 0): unknown {
  const s = resolveSchema(schema, components);
  if (depth > 8) return undefined;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  // A value the schema names as valid, where a made-up one would not be (a time zone's name).
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const options = s[key];
    if (!Array.isArray(options) || options.length === 0) continue;
    const first = options[0] as Schema;
    // Alternatives that only name required fields (exactly one of user_id and group_id) constrain the
    // object beside them: the first alternative's fields become required.
    if (first.type === undefined && first.properties === undefined && Array.isArray(first.required)) {
      return sampleOf({ ...s, [key]: undefined, required: [...((s.required as string[]) ?? []), ...(first.required as string[])] }, components, depth);
    }
    return sampleOf(first, components, depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      let required = (s.required ?? []) as string[];
      // An object of optional attributes (an update) names one, or it changes nothing and may be refused.
      if (required.length === 0) required = Object.keys(properties).filter((name) => !properties[name].pattern).slice(0, 1);
      return Object.fromEntries(required.filter((name) => properties[name]).map((name) => [name, sampleOf(properties[name], components, depth + 1)]));
    }
    case 'array': {
      const count = typeof s.minItems === 'number' && s.minItems > 0 ? s.minItems : 1;
      return Array.from({ length: count }, () => sampleOf(s.items as Schema, components, depth + 1));
    }
    case 'integer':
      return sampleNumber(s, true);
    case 'number':
      return sampleNumber(s, false);
    case 'boolean':
      return true;
    case 'string':
      return sampleString(s);
    default:
      return s.properties ? sampleOf({ ...s, type: 'object' }, components, depth) : `s${unique()}`;
  }
}
