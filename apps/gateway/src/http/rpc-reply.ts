import { decodeBookmark, type RpcReply } from '@lms/contracts';

/** A reply that is not the agreed shape is a fault of the service, answered as a 500 and logged. */
export class MalformedReplyError extends Error {
  constructor(subject: string, reason: string) {
    super(`malformed reply on ${subject}: ${reason}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseRpcReply(subject: string, raw: unknown): RpcReply {
  if (!isObject(raw) || typeof raw.ok !== 'boolean') throw new MalformedReplyError(subject, 'no boolean `ok`');
  if (!raw.ok) {
    if (!isObject(raw.error) || typeof raw.error.status !== 'number') throw new MalformedReplyError(subject, 'error without a status');
    return raw as RpcReply;
  }
  if (raw.status !== undefined && !(Number.isInteger(raw.status) && (raw.status as number) >= 200 && (raw.status as number) <= 399)) {
    throw new MalformedReplyError(subject, `success status ${String(raw.status)}`);
  }
  if (raw.total !== undefined && !(Number.isInteger(raw.total) && (raw.total as number) >= 0)) throw new MalformedReplyError(subject, 'total is not a count');
  if (raw.more !== undefined && typeof raw.more !== 'boolean') throw new MalformedReplyError(subject, 'more is not a boolean');
  if (raw.next !== undefined && !(typeof raw.next === 'string' && decodeBookmark(raw.next))) throw new MalformedReplyError(subject, 'next is not a bookmark');
  if (raw.headers !== undefined && (!isObject(raw.headers) || Object.values(raw.headers).some((v) => typeof v !== 'string'))) {
    throw new MalformedReplyError(subject, 'headers are not strings');
  }
  return raw as RpcReply;
}
