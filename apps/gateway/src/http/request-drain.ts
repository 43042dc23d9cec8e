import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How long a connection that has sent no request may still send one once the gateway has drained. */
const SILENT_CONNECTION_GRACE_MS = 1_000;

/**
 * The gateway's half of a graceful shutdown. `drain()` stops accepting connections but keeps the open
 * ones, so a request already on its way over a kept-alive connection is answered (with `Connection: close`,
 * set while closing) instead of reset; it resolves once no request is in flight. Closing the server then
 * only finds idle connections to close.
 */
@Injectable()
export class RequestDrain implements OnModuleInit {
  private readonly inFlight = new Set<FastifyRequest>();
  /** Connections that have sent no request yet. */
  private readonly silent = new Set<Socket>();
  private idle?: () => void;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.server.on('connection', (socket: Socket) => {
      this.silent.add(socket);
      socket.once('close', () => this.silent.delete(socket));
    });
    const end = (request: FastifyRequest) => {
      if (!this.inFlight.delete(request)) return;
      if (this.inFlight.size === 0) this.idle?.();
    };
    // Callback hooks, not async ones: an async hook costs a promise and a microtask turn on every request.
    fastify.addHook('onRequest', (request, reply, done) => {
      this.inFlight.add(request);
      this.silent.delete(request.raw.socket);
      // A client gone after its request was read (a browser closing while a SCORM player page's last commit is
      // on its way) gets no 'finish', so no onResponse: the response's 'close' ends the request either way.
      reply.raw.once('close', () => end(request));
      done();
    });
    fastify.addHook('onResponse', (request, _reply, done) => {
      end(request);
      done();
    });
    fastify.addHook('onRequestAbort', (request, done) => {
      end(request);
      done();
    });
  }

  async drain(server: Server): Promise<void> {
    // net.Server's close, not http.Server's: the latter also closes idle kept-alive connections at once.
    if (server.listening) NetServer.prototype.close.call(server);
    if (this.inFlight.size > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    // http.Server's close ends idle kept-alive connections but not one that has sent no request yet (a
    // browser's preconnect, a client that stalls): it would hold the close until its headers time out, a
    // minute. After a moment to send one, it is closed too; a request still being answered is not touched.
    const timer = setTimeout(() => this.silent.forEach((socket) => socket.destroy()), SILENT_CONNECTION_GRACE_MS).unref();
    server.once('close', () => clearTimeout(timer));
  }
}
