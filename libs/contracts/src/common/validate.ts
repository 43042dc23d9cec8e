import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import type { FieldError } from '../context.js';
import type { DtoClass } from '../routes/route.js';

/** Flattens nested class-validator errors into `{ field: 'custom_fields[0].name', message }`. */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      error.constraints?.whitelistValidation === message ? { field, message: `unknown field ${field}` } : { field, message },
    );
    return [...own, ...fieldErrors(error.children ?? [], field)];
  });
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Validates plain input against a DTO class; unknown fields are errors, never passed on (mass assignment). */
export async function validateInput<T extends object>(cls: DtoClass, plain: unknown, prefix = ''): Promise<ValidationResult<T>> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, errors: [{ field: prefix || 'body', message: 'must be a JSON object' }] };
  }
  const instance = plainToInstance(cls, plain) as T;
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length > 0) return { ok: false, errors: fieldErrors(errors, prefix) };
  return { ok: true, value: instance };
}
