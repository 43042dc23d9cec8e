import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Ids from callers are kept when they are short plain tokens, so they can be logged and echoed safely. */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && SANE_REQUEST_ID.test(value) ? value : randomUUID();
}

/** Fastify's `genReqId`: the request id is Fastify's own `request.id` from the first hook on. */
export const generateRequestId = (raw: IncomingMessage): string => requestIdFrom(raw.headers[REQUEST_ID_HEADER]);
