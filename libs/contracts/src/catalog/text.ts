import { IsString, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';

/** U+0000 anywhere in a value (strings, arrays, objects, keys): Postgres text and jsonb cannot store it. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => containsNul(item, depth + 1));
  return Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item, depth + 1));
}

/** Refuses U+0000 in the value, however deep (a 400 rather than a database error). */
export const NoNul = (options?: ValidationOptions) =>
  ValidateBy({ name: 'noNul', validator: { validate: (value: unknown) => !containsNul(value), defaultMessage: () => '$property must not contain U+0000' } }, options);

/** A string of at most `max` characters that Postgres can store. */
export const IsText = (max: number, options?: ValidationOptions): PropertyDecorator => (target, key) => {
  IsString(options)(target, key);
  MaxLength(max, options)(target, key);
  NoNul(options)(target, key);
};
