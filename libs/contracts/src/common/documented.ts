import { JSONSchema } from 'class-validator-jsonschema';

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
