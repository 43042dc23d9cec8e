import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problem.js';

/** Printable ASCII without spaces, up to 255 characters (a UUID is the usual choice). */
const KEY = /^[\x21-\x7e]{1,255}$/;

const invalid = (detail: string) => new ProblemError(400, 'INVALID_IDEMPOTENCY_KEY', detail, [{ field: 'Idempotency-Key', message: detail }]);

/**
 * The `Idempotency-Key` of a POST, for the request context: a bare token (`Idempotency-Key: 8e03…`) or the
 * draft's structured-field string (`Idempotency-Key: "8e03…"`). Other methods are idempotent already and
 * ignore it. A malformed key is a 400, never silently dropped: the client relies on it.
 */
export function idempotencyKeyOf(request: FastifyRequest): { idempotencyKey: string } | undefined {
  if (request.method !== 'POST') return undefined;
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) throw invalid('Send one Idempotency-Key header.');
  const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (!KEY.test(value)) throw invalid('Idempotency-Key must be 1 to 255 printable ASCII characters without spaces, e.g. a UUID.');
  return { idempotencyKey: value };
}
