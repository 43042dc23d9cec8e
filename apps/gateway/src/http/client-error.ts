import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SECURITY_HEADERS } from '@lms/platform';
import { PROBLEM_CONTENT_TYPE, problemDocument, statusTitle } from './problem.js';
import { REQUEST_ID_HEADER } from './request-id.js';

const CLIENT_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'REQUEST_HEADERS_TOO_LARGE', detail: 'The request headers are larger than the server accepts.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', detail: 'The request was not received in time.' },
};
const MALFORMED = { status: 400, code: 'MALFORMED_REQUEST', detail: 'The request is not valid HTTP/1.1.' };

/**
 * Node's HTTP parser refuses some requests (headers too large, malformed, too slow) before Fastify sees
 * them; they get the same problem+json answer as every other error instead of Node's bare text, then the
 * connection closes (the parser cannot read on after such a request).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Bytes after a request the parser took (a Content-Length shorter than the body): that request may be at work
  // (a write). Its answer goes first, as Node's own handler lets it; the refusal follows, then the close.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    let answered = false;
    const answer = () => {
      if (answered || socket.destroyed) return;
      answered = true;
      refuse(error, socket);
    };
    // Once that answer is sent: the connection is still open (kept alive) for the refusal to follow it.
    inFlight.once('finish', answer).once('close', answer);
    return;
  }
  refuse(error, socket);
}

function refuse(error: Error & { code?: string }, socket: Socket): void {
  const { status, code, detail } = (error.code && CLIENT_ERRORS[error.code]) || MALFORMED;
  const requestId = randomUUID();
  const body = JSON.stringify(problemDocument({ status, code, title: statusTitle(status), detail, headers: {}, unexpected: false }, requestId));
  const headers = {
    ...SECURITY_HEADERS,
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    [REQUEST_ID_HEADER]: requestId,
    connection: 'close',
  };
  const head = [`HTTP/1.1 ${status} ${statusTitle(status)}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join('\r\n');
  if (socket.writable) socket.end(`${head}\r\n\r\n${body}`);
  else socket.destroy(error);
}
