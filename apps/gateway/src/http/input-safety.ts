import { unsafeInput } from '@lms/contracts';
import { ProblemError } from './problem.js';

/**
 * The first step of reading a request, before any DTO: text Postgres cannot store (NUL, lone surrogates),
 * absurd nesting and prototype-named keys are a 400 here, whatever the route and the field.
 */
export function rejectUnsafeInput(parts: { params: unknown; query: unknown; body: unknown }): void {
  const errors = [...unsafeInput(parts.params), ...unsafeInput(parts.query), ...unsafeInput(parts.body)];
  if (errors.length > 0) throw new ProblemError(400, 'VALIDATION_FAILED', 'The request has invalid or unknown fields.', errors);
}
