import { JSONSchema } from 'class-validator-jsonschema';
import { ValidateIf } from 'class-validator';

/** A schema as JSONSchema takes it (the library's type, without naming the package it comes from). */
type SchemaObject = Exclude<Parameters<typeof JSONSchema>[0], (...args: never[]) => unknown>;

/**
 * A property rule of our own, with the values it takes for the OpenAPI document: class-validator-jsonschema
 * reads the library's rules but not ours, and would say `string` (or nothing) where a rule takes a date,
 * an id or a bookmark. The rule decides the type, so the document's guess from other decorators gives way.
 */
export const documented =
  (schema: SchemaObject, rule: PropertyDecorator): PropertyDecorator =>
  (target, key) => {
    rule(target, key);
    JSONSchema((guessed) => {
      const rest: Record<string, unknown> = { ...guessed };
      delete rest.type;
      return { ...rest, ...schema } as SchemaObject;
    })(target, String(key));
  };

/** The schema with null among the values it takes (and without the `not null` an `@IsDefined()` put there). */
function withNull(schema: SchemaObject): SchemaObject {
  const { not, ...rest } = schema as Record<string, unknown>;
  const kept = not !== undefined && JSON.stringify(not) !== '{"type":"null"}' ? { not } : {};
  if (rest.type === undefined) return { ...kept, anyOf: [rest, { type: 'null' }] } as SchemaObject;
  const types = Array.isArray(rest.type) ? rest.type : [rest.type];
  return { ...rest, ...kept, type: types.includes('null') ? types : [...types, 'null'] } as SchemaObject;
}

/**
 * null is a value of its own here (no due date, clear the check-in): the property's other rules skip it,
 * and the document says the property takes it. With `@IsOptional()` the key may also be left out; with
 * `@IsDefined()` it must be sent, null or not.
 */
export const NullAllowed = (): PropertyDecorator => (target, key) => {
  ValidateIf((_, value) => value !== null)(target, key);
  JSONSchema((guessed) => withNull(guessed))(target, String(key));
};
