import { TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { getMetadataStorage, type ValidationArguments } from 'class-validator';
import type { DtoClass } from '../routes/route.js';

/**
 * A DTO's class-transformer and class-validator metadata read once and turned into one function per
 * class, so a valid request costs a walk over its own fields instead of the libraries' per-call metadata
 * lookups, grouping and error bookkeeping (the gateway and then the service validate every request).
 *
 * It answers only "valid, and this is the instance plainToInstance would have built": it calls the same
 * constraint functions with the same arguments, in the libraries' order. On anything else (a failed
 * constraint, an unknown or odd key, a feature it does not reproduce) it answers `undefined` and the
 * caller runs class-transformer and class-validator themselves, whose verdict and messages stand.
 */
export type FastValidator = (plain: Record<string, unknown>) => object | undefined;

/** The slice of class-validator's ValidationMetadata this reads (its type is not exported). */
export interface ValidationMeta {
  type: string;
  propertyName: string;
  constraints: unknown[];
  constraintCls: new (...args: unknown[]) => unknown;
  each?: boolean;
  target: DtoClass | string;
  /** The decorator's own message, when it gives one. */
  message?: string | ((args: ValidationArguments) => string);
}

interface ConstraintMeta {
  async: boolean;
  instance: { validate(value: unknown, args: ValidationArguments): unknown };
}

export interface TransformMeta {
  transformFn(params: { value: unknown; key: string; obj: unknown; type: TransformationType; options: object }): unknown;
  options?: { groups?: unknown[]; since?: number; until?: number };
}

type Check = (value: unknown, object: object) => boolean;

interface PropertyPlan {
  name: string;
  /** plain -> instance value: nested DTO conversion, then the @Transform functions. */
  convert: (value: unknown, plain: Record<string, unknown>) => unknown | typeof UNSURE;
  /** IsOptional / ValidateIf: all must hold for the rest to run. */
  conditions: Array<(object: object, value: unknown) => boolean>;
  checks: Check[];
}

const UNSURE = Symbol('unsure');
const storage = getMetadataStorage();
const compiled = new WeakMap<DtoClass, FastValidator | null>();
/** Options plainToInstance passes to a @Transform function (its defaults). */
export const TRANSFORM_OPTIONS = Object.freeze({});

const isArrayLike = (value: unknown) => Array.isArray(value) || value instanceof Set || value instanceof Map;

/** JSON values without a DTO type, copied the way class-transformer copies them; UNSURE where it would differ. */
function copyPlain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const copy = copyPlain(item);
      if (copy === UNSURE) return UNSURE;
      out.push(copy);
    }
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return UNSURE;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // class-transformer skips keys naming an inherited function or getter (`toString`): reproduce nothing of it.
    if (key in Object.prototype) return UNSURE;
    const copy = copyPlain((value as Record<string, unknown>)[key]);
    if (copy === UNSURE) return UNSURE;
    out[key] = copy;
  }
  return out;
}

function constraintCheck(meta: ValidationMeta): Check | undefined {
  const constraints = storage.getTargetValidatorConstraints(meta.constraintCls) as unknown as ConstraintMeta[];
  if (constraints.length === 0 || constraints.some((c) => c.async)) return undefined;
  const targetName = typeof meta.target === 'function' ? meta.target.name : meta.target;
  return (value, object) => {
    const args: ValidationArguments = { targetName, property: meta.propertyName, object, value, constraints: meta.constraints };
    for (const constraint of constraints) {
      if (!meta.each || !isArrayLike(value)) {
        const ok = constraint.instance.validate(value, args);
        if (ok !== true && ok !== false) return false; // a promise: let the library handle it
        if (!ok) return false;
        continue;
      }
      const items = value instanceof Map ? [...value.values()] : [...(value as Iterable<unknown>)];
      for (const item of items) {
        const ok = constraint.instance.validate(item, args);
        if (ok !== true) return false;
      }
    }
    return true;
  };
}

/** class-validator's nested validation: objects by their own class, arrays element by element. */
function nestedCheck(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.every((item) => nestedCheck(item) && item !== undefined);
  if (value instanceof Set || value instanceof Map) return false;
  if (!(value instanceof Object)) return false;
  const validator = fastValidatorOf(value.constructor as DtoClass);
  return validator !== undefined && validator.verify(value);
}

/** `@Type(() => Dto)` conversion of a value: objects become Dto instances, arrays element-wise. */
function typedConvert(cls: DtoClass, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const converted = typedConvert(cls, item);
      if (converted === UNSURE) return UNSURE;
      out.push(converted);
    }
    return out;
  }
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return UNSURE;
  const nested = fastValidatorOf(cls);
  return nested ? (nested.build(value as Record<string, unknown>) ?? UNSURE) : UNSURE;
}

interface Compiled {
  /** plain -> instance (converted, not yet validated), or undefined when unsure. */
  build(plain: Record<string, unknown>): object | undefined;
  /** class-validator's verdict on an instance this class built. */
  verify(instance: object): boolean;
}

const compiledPlans = new WeakMap<DtoClass, Compiled | null>();

function fastValidatorOf(cls: DtoClass): Compiled | undefined {
  if (!compiledPlans.has(cls)) compiledPlans.set(cls, compile(cls) ?? null);
  return compiledPlans.get(cls) ?? undefined;
}

function compile(cls: DtoClass): Compiled | undefined {
  const metas = storage.getTargetValidationMetadatas(cls, '', false, false) as unknown as ValidationMeta[];
  // forbidUnknownValues: a class with no rules at all is refused by the library; its message stands.
  if (metas.length === 0) return undefined;
  if (defaultMetadataStorage.getExposedMetadatas(cls).length > 0 || defaultMetadataStorage.getExcludedMetadatas(cls).length > 0) return undefined;
  const byProperty = new Map<string, ValidationMeta[]>();
  for (const meta of metas) byProperty.set(meta.propertyName, [...(byProperty.get(meta.propertyName) ?? []), meta]);

  let fresh: object;
  try {
    fresh = new cls();
  } catch {
    return undefined;
  }
  // Whatever the constructor sets is checked by the whitelist too; only rule-bearing keys are reproduced.
  if (Object.keys(fresh).some((key) => !byProperty.has(key))) return undefined;

  const plans: PropertyPlan[] = [];
  for (const [name, list] of byProperty) {
    const conditions: PropertyPlan['conditions'] = [];
    const checks: Check[] = [];
    const defined: Check[] = [];
    let nested = false;
    for (const meta of list) {
      switch (meta.type) {
        case 'conditionalValidation':
          conditions.push(meta.constraints[0] as (object: object, value: unknown) => boolean);
          break;
        case 'whitelistValidation':
          break;
        case 'nestedValidation':
          nested = true;
          break;
        case 'isDefined':
        case 'customValidation': {
          const check = constraintCheck(meta);
          if (!check) return undefined;
          (meta.type === 'isDefined' ? defined : checks).push(check);
          break;
        }
        default:
          return undefined; // promise validation and anything newer: the library decides
      }
    }
    if (nested) checks.push((value) => nestedCheck(value));

    const type = defaultMetadataStorage.findTypeMetadata(cls, name);
    if (type && (type.options?.discriminator || !type.typeFunction)) return undefined;
    const transforms = (defaultMetadataStorage.findTransformMetadatas(cls, name, TransformationType.PLAIN_TO_CLASS) as TransformMeta[]).filter(
      (t) => !t.options?.groups?.length,
    );
    if (transforms.some((t) => t.options?.since !== undefined || t.options?.until !== undefined)) return undefined;
    const typeFunction = type?.typeFunction;
    const convert: PropertyPlan['convert'] = (value, plain) => {
      let out: unknown;
      if (typeFunction) {
        const target = typeFunction() as unknown;
        if (typeof target !== 'function' || target === String || target === Number || target === Boolean || target === Date || target === Object) return UNSURE;
        out = typedConvert(target as DtoClass, value);
      } else {
        out = copyPlain(value);
      }
      if (out === UNSURE) return UNSURE;
      for (const t of transforms) out = t.transformFn({ value: out, key: name, obj: plain, type: TransformationType.PLAIN_TO_CLASS, options: TRANSFORM_OPTIONS });
      return out;
    };
    plans.push({ name, convert, conditions, checks: [...defined, ...checks] });
  }
  const planByName = new Map(plans.map((plan) => [plan.name, plan]));

  return {
    build(plain) {
      const instance = new cls() as Record<string, unknown>;
      for (const key of Object.keys(plain)) {
        const plan = planByName.get(key);
        // Unknown keys are errors (whitelist), keys on the prototype are skipped by class-transformer: the library says which.
        if (!plan) return undefined;
        const value = plan.convert(plain[key], plain);
        if (value === UNSURE) return undefined;
        instance[key] = value;
      }
      return instance;
    },
    verify(instance) {
      const object = instance as Record<string, unknown>;
      for (const key of Object.keys(object)) if (!planByName.has(key)) return false;
      for (const plan of plans) {
        const value = object[plan.name];
        if (!plan.conditions.every((condition) => condition(object, value))) continue;
        for (const check of plan.checks) if (!check(value, object)) return false;
      }
      return true;
    },
  };
}

/** The fast path for a DTO class, or undefined when the class uses something it does not reproduce. */
export function fastValidator(cls: DtoClass): FastValidator | undefined {
  if (!compiled.has(cls)) {
    const plan = fastValidatorOf(cls);
    compiled.set(
      cls,
      plan
        ? (plain) => {
            const instance = plan.build(plain);
            return instance !== undefined && plan.verify(instance) ? instance : undefined;
          }
        : null,
    );
  }
  return compiled.get(cls) ?? undefined;
}
