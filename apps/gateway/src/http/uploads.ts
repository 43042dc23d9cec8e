import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import type { RouteDefinition, UploadedFile } from '@lms/contracts';
import { createFileStore, type FileStore } from '@lms/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError } from './problem.js';

/** A request body of an upload type, not read yet: the route decides whether to take it. */
export class UploadBody {
  constructor(
    readonly stream: Readable,
    readonly contentType: string,
  ) {}
}

/**
 * A `text/plain` body: what a browser's `navigator.sendBeacon` sends (the SCORM player's last commit).
 * Only the player reads one; every route of the table refuses it (415), as before.
 */
export class TextBody {
  constructor(readonly text: string) {}
}

/**
 * Registers the upload routes' content types (their bodies stream through, unread, as an `UploadBody`)
 * and `text/plain` (read as a `TextBody`, within the body limit).
 */
export function acceptUploads(fastify: FastifyInstance, routes: RouteDefinition[]): void {
  const types = new Set(routes.flatMap((route) => route.upload?.contentTypes ?? []));
  for (const type of types) fastify.addContentTypeParser(type, (_request, payload, done) => done(null, new UploadBody(payload, type)));
  fastify.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => done(null, new TextBody(body as string)));
}

const tooLarge = (limit: number) => new ProblemError(413, 'UPLOAD_TOO_LARGE', `The file is larger than ${limit} bytes (UPLOAD_MAX_BYTES).`);

/**
 * Upload routes (design: a file never crosses the bus): the body streams into the `UPLOADS` bucket, counted against UPLOAD_MAX_BYTES on the way, and the service gets its key. The staged file
 * is deleted once the service has answered: the service keeps what it needs under its own keys.
 */
@Injectable()
export class Uploads {
  private readonly files: FileStore;

  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {
    this.files = createFileStore(deps.runtime.config, deps.runtime.bus, { writer: true, bucket: 'UPLOADS' });
  }

  /** The upload of an upload route (415 when the body is not one of its types); the body of any other route must not be one. */
  take(route: RouteDefinition, request: FastifyRequest): UploadBody | undefined {
    const body = request.body;
    if (body instanceof TextBody) throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send request bodies as application/json.');
    if (!route.upload) {
      if (body instanceof UploadBody) throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', `This endpoint takes JSON, not ${body.contentType}.`);
      return undefined;
    }
    if (!(body instanceof UploadBody)) {
      throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', `Send the file as the request body with Content-Type ${route.upload.contentTypes[0]}.`);
    }
    // What the route's input validation sees: no JSON body.
    request.body = undefined;
    return body;
  }

  async stage(upload: UploadBody, request: FastifyRequest): Promise<UploadedFile> {
    const limit = this.deps.runtime.config.uploadMaxBytes;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    const key = `uploads/${randomUUID()}`;
    let size = 0;
    async function* counted(stream: Readable): AsyncIterable<Uint8Array> {
      for await (const chunk of stream) {
        size += (chunk as Buffer).length;
        if (size > limit) throw tooLarge(limit);
        yield chunk as Buffer;
      }
    }
    try {
      await this.files.put(key, counted(upload.stream));
    } catch (err) {
      await this.discard(key);
      throw err;
    }
    return { key, size, content_type: upload.contentType };
  }

  async discard(key: string): Promise<void> {
    await this.files.delete(key).catch((err: unknown) => this.deps.runtime.logger.warn({ err, key }, 'could not delete a staged upload'));
  }
}
