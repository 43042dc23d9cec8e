import { createRequire } from 'node:module';
import { getMetadataStorage, IS_RFC_3339, ValidationTypes } from 'class-validator';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { DtoClass, JsonSchema } from '@lms/contracts';

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

// class-transformer keeps `@Type()` metadata in this singleton, which its package entry does not export.
const { defaultMetadataStorage } = createRequire(import.meta.url)('class-transformer/cjs/storage.js') as typeof import('class-transformer/types/storage.js');

/** `@IsRFC3339()`, which the library has no converter for, is a date-time (timestamps in requests are RFC 3339). */
const OPTIONS = {
  refPointerPrefix: SCHEMA_REF_PREFIX,
  classTransformerMetadataStorage: defaultMetadataStorage,
  additionalConverters: { [IS_RFC_3339]: { type: 'string' as const, format: 'date-time' } },
};

/** Property types TypeScript reports for unions and interfaces (`number | string` is `Object`): not classes with a schema. */
const BUILT_INS = new Set(['Object', 'String', 'Number', 'Boolean', 'Array', 'Function']);

/** Drops `$ref`s to built-in constructors, leaving what the validators said about the value. */
function withoutBuiltInRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutBuiltInRefs) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !(key === '$ref' && typeof item === 'string' && BUILT_INS.has(item.slice(SCHEMA_REF_PREFIX.length))))
      .map(([key, item]) => [key, withoutBuiltInRefs(item)]),
  ) as T;
}

/**
 * The properties a client must send: `@IsDefined()` with no condition that skips an absent key. The schema
 * library counts every condition as optional, but `@NullAllowed()`'s skips only null (`allow_comments`, a
 * check-in's `marked_complete_at`: the key is required, null a value).
 */
function requiredByRules(cls: DtoClass): string[] {
  const byProperty = new Map<string, { defined: boolean; absentSkipped: boolean }>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false)) {
    const entry = byProperty.get(meta.propertyName) ?? { defined: false, absentSkipped: false };
    if (meta.type === ValidationTypes.IS_DEFINED) entry.defined = true;
    const condition = meta.constraints?.[0] as ((object: object, value: unknown) => boolean) | undefined;
    if (meta.type === ValidationTypes.CONDITIONAL_VALIDATION && condition?.({}, undefined) === false) entry.absentSkipped = true;
    byProperty.set(meta.propertyName, entry);
  }
  return [...byProperty].filter(([, e]) => e.defined && !e.absentSkipped).map(([name]) => name);
}

/** Every `$ref` to a component schema inside a value. */
function refsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith(SCHEMA_REF_PREFIX)) found.add(item.slice(SCHEMA_REF_PREFIX.length));
      else refsIn(item, found);
    }
  }
  return found;
}

/**
 * JSON Schemas of the DTO classes, read from their class-validator decorators. The classes the routes
 * name get a component each (two classes of one name get distinct names); nested classes are found
 * through their `@Type()` metadata (by name only when a class has none), and only those the document
 * reaches are kept.
 */
export class DtoSchemas {
  private readonly names = new Map<DtoClass, string>();
  private readonly own = new Map<string, JsonSchema>();
  private nested?: Record<string, JsonSchema>;
  /** Nested classes met through `@Type()`, by name: their schema includes what they inherit. */
  private readonly classes = new Map<string, DtoClass>();
  private readonly classSchemas = new Map<DtoClass, JsonSchema>();

  /** The schema of a class, inline (for query and path parameters). */
  inline(cls: DtoClass): JsonSchema {
    let schema = this.classSchemas.get(cls);
    if (!schema) {
      schema = withoutBuiltInRefs(targetConstructorToSchema(cls, OPTIONS) as JsonSchema);
      const required = [...new Set([...((schema.required as string[] | undefined) ?? []), ...requiredByRules(cls)])];
      if (required.length > 0) schema = { ...schema, required };
      this.classSchemas.set(cls, schema);
      this.registerNested(cls, schema);
    }
    return schema;
  }

  /**
   * Records the classes a schema's `$ref`s name, found through their `@Type()` metadata. Looking a nested
   * class up by name in class-validator's metadata alone misses what a subclass inherits (a subclass with
   * no decorators of its own has no entry), and confuses two parents of one name.
   */
  private registerNested(cls: DtoClass, schema: JsonSchema): void {
    for (const property of Object.keys((schema.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      const type = defaultMetadataStorage.findTypeMetadata(cls, property)?.typeFunction() as DtoClass | undefined;
      if (typeof type !== 'function' || BUILT_INS.has(type.name) || this.classes.has(type.name)) continue;
      this.classes.set(type.name, type);
      this.inline(type);
    }
  }

  /** A `$ref` to the class's component schema. */
  ref(cls: DtoClass): JsonSchema {
    let name = this.names.get(cls);
    if (!name) {
      name = cls.name || 'Body';
      for (let n = 2; this.own.has(name); n++) name = `${cls.name}${n}`;
      this.names.set(cls, name);
      this.own.set(name, this.inline(cls));
    }
    return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
  }

  /** The schema a `$ref` inside a class's schema points at (a nested class, by name). */
  resolve(ref: string): JsonSchema | undefined {
    if (!ref.startsWith(SCHEMA_REF_PREFIX)) return undefined;
    const name = ref.slice(SCHEMA_REF_PREFIX.length);
    const cls = this.classes.get(name);
    return cls ? this.inline(cls) : (this.nestedSchemas()[name] ?? this.own.get(name));
  }

  private nestedSchemas(): Record<string, JsonSchema> {
    return (this.nested ??= withoutBuiltInRefs(validationMetadatasToSchemas(OPTIONS) as Record<string, JsonSchema>));
  }

  /** The component schemas the document refers to, its own extra ones included. */
  components(document: unknown, extra: Record<string, JsonSchema>): Record<string, JsonSchema> {
    this.nestedSchemas();
    const out: Record<string, JsonSchema> = {};
    const queue = [...refsIn(document), ...refsIn(extra)];
    while (queue.length > 0) {
      const name = queue.shift() as string;
      if (out[name]) continue;
      // A class without a single validator has no metadata at all: an open object is what it accepts.
      const cls = this.classes.get(name);
      const schema = extra[name] ?? this.own.get(name) ?? (cls && this.inline(cls)) ?? this.nestedSchemas()[name] ?? { type: 'object' };
      out[name] = schema;
      queue.push(...refsIn(schema));
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
}
