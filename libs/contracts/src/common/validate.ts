import { plainToInstance, TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { getMetadataStorage, validate, type ValidationError } from 'class-validator';
import type { FieldError } from '../context.js';
import type { DtoClass } from '../routes/route.js';
import { fastValidator, TRANSFORM_OPTIONS, type TransformMeta, type ValidationMeta } from './compiled-validator.js';

/** More fields than any DTO or free-form map of the contract holds: refused before any per-key work. */
export const MAX_OBJECT_KEYS = 1000;
/** The bound of a DTO's array that declares none (`@ArrayMaxSize`), checked before any per-item work. */
export const MAX_ARRAY_ITEMS = 10_000;
/** One 400 lists at most this many field errors, however many a request has. */
export const MAX_FIELD_ERRORS = 50;

/**
 * Which failing rule of a field speaks first: presence, then type, then the rest. class-validator
 * evaluates a property's decorators in no order a reader would choose (`7` for a name fails "shorter
 * than 255 characters" before "must be a string").
 */
const RULE_RANK = ['whitelistValidation', 'isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'isEnum', 'isIn'];
const rankOf = (rule: string) => (RULE_RANK.includes(rule) ? RULE_RANK.indexOf(rule) : RULE_RANK.length);

/** The one message a field gets: its first failing rule by `RULE_RANK` (issue 18: one field, one message). */
function firstMessage(field: string, constraints: Record<string, string>): string | undefined {
  const [rule] = Object.keys(constraints).sort((a, b) => rankOf(a) - rankOf(b));
  if (rule === undefined) return undefined;
  return rule === 'whitelistValidation' ? `unknown field ${field}` : constraints[rule];
}

/** Flattens nested class-validator errors into `{ field: 'custom_fields[0].name', message }`, one per field. */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    const message = firstMessage(field, error.constraints ?? {});
    return [...(message === undefined ? [] : [{ field, message }]), ...fieldErrors(error.children ?? [], field)];
  });
}

/**
 * The first object in `plain` (depth first) holding more than MAX_OBJECT_KEYS keys, as a field error.
 * class-transformer de-duplicates an object's keys in quadratic time, so a body of 100,000 unknown keys
 * would stall the process for seconds; one linear walk refuses it first.
 */
function oversizedObject(plain: object, prefix: string): FieldError | undefined {
  const stack: Array<[unknown, string]> = [[plain, prefix]];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) if (typeof value[i] === 'object') stack.push([value[i], `${path}[${i}]`]);
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_OBJECT_KEYS) return { field: path || 'body', message: `has ${keys.length} fields; at most ${MAX_OBJECT_KEYS} are accepted` };
    for (const key of keys) {
      const child = (value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return undefined;
}

/**
 * A DTO class's array properties with their bounds and messages, its nested DTO properties (`@Type`), and
 * the `@Transform`s of its other properties (a nested DTO is checked as sent: its transforms may build
 * instances, the work this check runs before).
 */
interface ArrayBounds {
  max: Array<{ name: string; limit: number; message: (value: unknown[], object: object) => string }>;
  nested: Array<[string, () => unknown]>;
  transforms: Map<string, TransformMeta['transformFn'][]>;
}

const arrayBoundsCache = new WeakMap<DtoClass, ArrayBounds>();

function arrayBoundsOf(cls: DtoClass): ArrayBounds {
  let bounds = arrayBoundsCache.get(cls);
  if (bounds) return bounds;
  const storage = getMetadataStorage();
  const metas = storage.getTargetValidationMetadatas(cls, '', false, false) as unknown as ValidationMeta[];
  const named = (meta: ValidationMeta, name: string) => meta.type === 'customValidation' && storage.getTargetValidatorConstraints(meta.constraintCls).some((c) => c.name === name);
  bounds = { max: [], nested: [], transforms: new Map() };
  for (const name of new Set(metas.map((m) => m.propertyName))) {
    const own = metas.filter((m) => m.propertyName === name);
    const declared = own.find((m) => named(m, 'arrayMaxSize'));
    const nested = own.some((m) => m.type === 'nestedValidation');
    if (declared || nested || own.some((m) => named(m, 'isArray'))) {
      const limit = declared ? Number(declared.constraints?.[0]) : MAX_ARRAY_ITEMS;
      // class-validator's message for the rule, the decorator's own where it has one.
      const custom = declared?.message;
      const message = (value: unknown[], object: object) =>
        typeof custom === 'string'
          ? custom
          : typeof custom === 'function'
            ? custom({ property: name, value, constraints: [limit], object, targetName: cls.name })
            : `${name} must contain no more than ${limit} elements`;
      bounds.max.push({ name, limit, message });
    }
    if (nested) {
      const type = defaultMetadataStorage.findTypeMetadata(cls, name);
      if (type?.typeFunction && !type.options?.discriminator) bounds.nested.push([name, type.typeFunction as () => unknown]);
      continue;
    }
    const transforms = (defaultMetadataStorage.findTransformMetadatas(cls, name, TransformationType.PLAIN_TO_CLASS) as TransformMeta[])
      .filter((t) => !t.options?.groups?.length)
      .map((t) => t.transformFn);
    if (transforms.length > 0) bounds.transforms.set(name, transforms);
  }
  arrayBoundsCache.set(cls, bounds);
  return bounds;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The first array of `plain` longer than its DTO allows (`@ArrayMaxSize`, or MAX_ARRAY_ITEMS where it
 * declares none), with class-validator's message. class-validator checks the size only after validating
 * every item (and `@ArrayUnique` compares them pairwise), so 300,000 items in a 1 MiB body held the process
 * for many seconds before failing. Free-form values (`@IsObject`) are not validated item by item: their
 * arrays are bounded by the body limit alone.
 */
function overlongArray(cls: DtoClass, plain: Record<string, unknown>, prefix: string): FieldError | undefined {
  const { max, nested, transforms } = arrayBoundsOf(cls);
  const at = (name: string) => (prefix ? `${prefix}.${name}` : name);
  // A list of values is checked as its `@Transform`s leave it (a query list drops its empty values), as
  // class-validator will see it; a nested DTO as sent (the users route converts the first of its users), so
  // an item a transform drops is held to its bounds too.
  const raw = (name: string) => (Object.hasOwn(plain, name) ? plain[name] : undefined);
  const valueOf = (name: string) => {
    let value = raw(name);
    for (const transformFn of transforms.get(name) ?? []) {
      try {
        value = transformFn({ value, key: name, obj: plain, type: TransformationType.PLAIN_TO_CLASS, options: TRANSFORM_OPTIONS });
      } catch {
        return raw(name);
      }
    }
    return value;
  };
  for (const { name, limit, message } of max) {
    const value = valueOf(name);
    if (Array.isArray(value) && value.length > limit) return { field: at(name), message: message(value, plain) };
  }
  for (const [name, typeFunction] of nested) {
    const value = raw(name);
    const target = typeFunction() as DtoClass;
    if (typeof target !== 'function') continue;
    const items = Array.isArray(value) ? value : [value];
    for (let i = 0; i < items.length; i++) {
      if (!isPlainObject(items[i])) continue;
      const found = overlongArray(target, items[i] as Record<string, unknown>, Array.isArray(value) ? `${at(name)}[${i}]` : at(name));
      if (found) return found;
    }
  }
  return undefined;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/**
 * What an unknown field does: a client's input refuses it (mass assignment; a mistyped field is never
 * silently ignored), while another service's event drops it, so a producer one release ahead can add a
 * field without its old consumers dead-lettering every event for the length of a rolling update.
 */
export type UnknownFields = 'refuse' | 'drop';

/**
 * Validates plain input against a DTO class; unknown fields are refused or dropped, never passed on.
 * A valid input usually takes the DTO's compiled fast path; a doubtful one gets class-validator's own verdict.
 */
export async function validateInput<T extends object>(
  cls: DtoClass,
  plain: unknown,
  prefix = '',
  unknownFields: UnknownFields = 'refuse',
): Promise<ValidationResult<T>> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, errors: [{ field: prefix || 'body', message: 'must be a JSON object' }] };
  }
  const oversized = overlongArray(cls, plain as Record<string, unknown>, prefix) ?? oversizedObject(plain, prefix);
  if (oversized) return { ok: false, errors: [oversized] };
  const fast = fastValidator(cls)?.(plain as Record<string, unknown>);
  if (fast) return { ok: true, value: fast as T };
  const instance = plainToInstance(cls, plain) as T;
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: unknownFields === 'refuse', forbidUnknownValues: true });
  if (errors.length > 0) return { ok: false, errors: fieldErrors(errors, prefix).slice(0, MAX_FIELD_ERRORS) };
  return { ok: true, value: instance };
}
