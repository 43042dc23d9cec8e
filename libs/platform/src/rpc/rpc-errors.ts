import type { FieldError, RpcError } from '@lms/contracts';

/** A failure the caller can act on: thrown by services, answered with its status. */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
  ) {
    super(detail ?? title);
  }

  toRpcError(): RpcError {
    return { status: this.status, code: this.code, title: this.title, detail: this.detail, errors: this.errors };
  }
}

export const badRequest = (code: string, detail: string, errors?: FieldError[]) => new DomainError(400, code, 'Bad Request', detail, errors);
export const notFound = (code: string, detail: string) => new DomainError(404, code, 'Not Found', detail);
export const forbidden = (code: string, detail: string) => new DomainError(403, code, 'Forbidden', detail);
export const conflict = (code: string, detail: string) => new DomainError(409, code, 'Conflict', detail);
export const unprocessable = (code: string, detail: string, errors?: FieldError[]) => new DomainError(422, code, 'Unprocessable Content', detail, errors);
export const unauthorized = (code: string, detail: string) => new DomainError(401, code, 'Unauthorized', detail);

export const INTERNAL_ERROR: RpcError = { status: 500, code: 'INTERNAL_ERROR', title: 'Internal Server Error' };

const hasSqlState = (state: string) => (err: unknown): boolean => typeof err === 'object' && err !== null && (err as { code?: string }).code === state;

/** Postgres unique_violation, so services can turn a race into a 400/409 instead of a 500. */
export const isUniqueViolation = hasSqlState('23505');
/** Postgres foreign_key_violation: the row a write names was deleted by a concurrent transaction. */
export const isForeignKeyViolation = hasSqlState('23503');

/** `write`, or `problem` when the database refuses it as `refusal` says: a race answered as the service's own problem. */
async function answering<T>(write: () => Promise<T>, refusal: (err: unknown) => boolean, problem: () => Error): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw refusal(err) ? problem() : err;
  }
}

/** `write`, or the `taken` problem when a unique index refuses it (a concurrent write got there first). */
export const unlessTaken = <T>(write: () => Promise<T>, taken: () => Error): Promise<T> => answering(write, isUniqueViolation, taken);

/** `write`, or the `gone` problem (a 404) when the row it names was deleted meanwhile, rather than the generic 409. */
export const unlessGone = <T>(write: () => Promise<T>, gone: () => Error): Promise<T> => answering(write, isForeignKeyViolation, gone);

/** The database is down, restarting or out of connections: the client may retry, so a 503, never a 500. */
export const DATABASE_UNAVAILABLE: RpcError = {
  status: 503,
  code: 'DATABASE_UNAVAILABLE',
  title: 'Service Unavailable',
  detail: 'The database cannot be reached right now; retry shortly.',
};

/** SQLSTATE classes 08 (connection), 57P (shutdown, starting up) and 53 (out of resources), and pg's socket failures. */
const UNAVAILABLE_STATE = /^(08|57P|53)/;
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Client was closed and is not queryable/i;

/** Whether `err` (pg's, or TypeORM's wrapping it) says the database is unreachable rather than the query wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, driverError } = err as { code?: unknown; message?: unknown; driverError?: unknown };
  if (driverError && driverError !== err && isDatabaseUnavailable(driverError)) return true;
  if (typeof code === 'string' && (UNAVAILABLE_STATE.test(code) || UNAVAILABLE_SOCKET.has(code))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}

/** Another request won a race the service did not answer itself: the client reads again and may retry, so a 409, never a 500. */
export const CONCURRENT_CHANGE: RpcError = {
  status: 409,
  code: 'CONCURRENT_CHANGE',
  title: 'Conflict',
  detail: 'Another request changed the same records at the same moment; read them again before retrying.',
};

/**
 * What only a concurrent writer causes once a service has checked its input: a row referenced was deleted
 * (23503), a key was taken (23505), a serialization failure (40001) or a deadlock (40P01).
 */
const CONCURRENT_STATE = new Set(['23503', '23505', '40001', '40P01']);

/** Whether `err` (pg's, or TypeORM's wrapping it) is a race lost to another transaction. */
export function isConcurrentChange(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, driverError } = err as { code?: unknown; driverError?: unknown };
  return (typeof code === 'string' && CONCURRENT_STATE.has(code)) || (driverError !== err && isConcurrentChange(driverError));
}

/** Every error becomes one RPC error shape; anything else not a DomainError is a 500 with no internals. */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof DomainError) return err.toRpcError();
  if (isDatabaseUnavailable(err)) return DATABASE_UNAVAILABLE;
  if (isConcurrentChange(err)) return CONCURRENT_CHANGE;
  return INTERNAL_ERROR;
}
