import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long a streamed answer may move nothing (its client reads nothing, or its source sends nothing) before its connection is cut. */
export const STALLED_STREAM_MS = 60_000;

/**
 * Cuts the connection when it has moved nothing for `ms` (checked every `ms`) while a streamed answer is on
 * it: Node sets no such limit, so a client that stopped reading held the answer's source (a file-store read,
 * a live-updates stream's buffer) for as long as it kept the connection open. Its own timer, not the
 * socket's timeout, which Node's keep-alive and other answers on the connection also set.
 */
export function cutWhenStalled(request: FastifyRequest, reply: FastifyReply, ms = STALLED_STREAM_MS): void {
  const socket = request.raw.socket;
  // Bytes handed to the socket, its buffer included: they stop growing when the client stops reading.
  const moved = () => socket.bytesWritten + socket.bytesRead;
  let last = moved();
  const timer = setInterval(() => {
    const now = moved();
    if (now === last) socket.destroy();
    last = now;
  }, ms).unref();
  reply.raw.once('close', () => clearInterval(timer));
}

/**
 * Answers with `stream` as the body (Fastify destroys it when the answer closes), its connection cut when it
 * stalls. A `HEAD` gets the headers only: Fastify's own HEAD route would read the whole source to drop it.
 */
export function sendStream(request: FastifyRequest, reply: FastifyReply, stream: Readable, stalledMs = STALLED_STREAM_MS): FastifyReply {
  if (request.method === 'HEAD') {
    stream.destroy();
    return reply.send(Readable.from([]));
  }
  cutWhenStalled(request, reply, stalledMs);
  return reply.send(stream);
}
