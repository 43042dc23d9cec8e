import type { FieldError } from '../context.js';

/**
 * Deepest nesting of objects and arrays any request may have. The deepest DTO (a user with custom field
 * values) is 4 levels; anything far deeper is an attack on the recursion of the parsers and validators.
 */
export const MAX_INPUT_DEPTH = 32;

/**
 * `constructor`, `toString`, `__proto__`, …: class-transformer silently drops a key that names a function
 * of the prototype, so such a key would slip past the unknown-field check, or reach code that trips over
 * it. No field and no map key of the API is named like one.
 */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text cannot be stored (Postgres text refuses NUL and ill-formed UTF-16), or undefined. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain a NUL character';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it holds a lone UTF-16 surrogate)';
  return undefined;
}

const at = (parent: string, key: string | number): string =>
  typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/**
 * What no DTO should ever have to handle, checked on raw input before any validation: NUL characters and
 * lone surrogates in any text or key, nesting deeper than MAX_INPUT_DEPTH, keys named like prototype
 * members. One check for every route and every field, at the gateway and again in each service.
 * `field` names the part (empty for the top level of a body); errors name the offending path.
 */
export function unsafeInput(value: unknown, field = ''): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (errors.length >= 20) return; // enough to explain the refusal; the rest is not read
    if (typeof node === 'string') {
      const problem = textProblem(node);
      if (problem) errors.push({ field: path || 'body', message: `${path || 'body'} ${problem}` });
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (depth > MAX_INPUT_DEPTH) {
      errors.push({ field: path || 'body', message: `nesting deeper than ${MAX_INPUT_DEPTH} levels is not accepted` });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, at(path, i), depth + 1));
      return;
    }
    for (const [key, item] of Object.entries(node)) {
      const keyProblem = PROTOTYPE_NAMES.has(key) ? 'is a reserved name, not a field' : textProblem(key);
      if (keyProblem) {
        errors.push({ field: at(path, JSON.stringify(key).slice(1, -1)), message: `the key ${JSON.stringify(key)} ${keyProblem}` });
        continue;
      }
      walk(item, at(path, key), depth + 1);
    }
  };
  walk(value, field, 1);
  return errors;
}
