import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DOCS_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '@lms/platform';
import type { FastifyInstance } from 'fastify';
import { DOCS_PATH } from '../openapi/swagger-ui.js';

const HEADERS = Object.entries(SECURITY_HEADERS);
const isDocsPage = (url: string): boolean => url === DOCS_PATH || url.startsWith(`${DOCS_PATH}/`) || url.startsWith(`${DOCS_PATH}?`);

/** Adds the system's security headers to every answer of the gateway, errors and 404s included (a callback hook: see RequestObserver). */
@Injectable()
export class SecurityHeaders implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', (request, reply, payload, done) => {
      // A page that sets its own policy (the SCORM player and package files frame each other) keeps it.
      for (const [name, value] of HEADERS) if (!reply.hasHeader(name)) reply.header(name, value);
      if (isDocsPage(request.url)) reply.header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY);
      done(null, payload);
    });
  }
}
