import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long a streamed answer may move nothing (its client reads nothing, or its source sends nothing) before its connection is cut. */
export const STALLED_STREAM_MS = 60_000;

/**
 * Cuts the connection once it has moved nothing for `ms` while a streamed answer is on it: Node sets no
 * such timeout, so a client that stopped reading held the answer's source (a file-store read, a live-updates
 * stream's buffer) for as long as it kept the connection open. Once the answer is done, the timeout goes
 * (Node's keep-alive timeout takes over).
 */
export function cutWhenStalled(request: FastifyRequest, reply: FastifyReply, ms = STALLED_STREAM_MS): void {
  const socket = request.raw.socket;
  const cut = () => socket.destroy();
  socket.setTimeout(ms);
  socket.once('timeout', cut);
  reply.raw.once('close', () => {
    socket.off('timeout', cut);
    // Unless Node has set its keep-alive timeout since: a request pipelined behind this one waits on its service.
    if (socket.timeout === ms) socket.setTimeout(0);
  });
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
