import { randomUUID } from 'node:crypto';
import { finished, type Readable } from 'node:stream';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { RouteDefinition, RouteUpload, UploadedFile, UploadRequestBody } from '@lms/contracts';
import busboy from 'busboy';
import { createFileStore, type FileStore, PeriodicTask, removeUnnamedFiles } from '@lms/platform';
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

const MULTIPART = 'multipart/form-data';
/** Text fields a multipart upload may carry beside its file, and the longest one. */
const MULTIPART_FIELDS = 10;
const MULTIPART_FIELD_BYTES = 32 * 1024;

const badMultipart = (detail: string) => new ProblemError(400, 'MULTIPART_INVALID', `The multipart/form-data body is not one file and some text fields: ${detail}.`);

/** The client left before its body ended: nobody reads the answer, but the log reads it as the client's doing, not a 500. */
const incompleteBody = () => new ProblemError(400, 'BODY_INCOMPLETE', 'The request body ended before it was complete.');

/** What a body that stopped short answers: the problem it failed with (a 408 when its client went idle, see BodyWatch), else a 400. */
const stoppedShort = (body: Readable) => (body.errored instanceof ProblemError ? body.errored : incompleteBody());

/** What an upload route takes, as a 415 names it: `application/zip or application/json`. */
const acceptedTypes = (upload: RouteUpload): string => [...upload.contentTypes, ...(upload.orJson ? ['application/json'] : [])].join(' or ');

const tooLarge = (limit: number) => new ProblemError(413, 'UPLOAD_TOO_LARGE', `The file is larger than ${limit} bytes (UPLOAD_MAX_BYTES).`);

/** How often each gateway replica sweeps the staged uploads its peers (or it, before a restart) left. */
const SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Upload routes (design: a file never crosses the bus): the body streams into the `UPLOADS` bucket, counted against UPLOAD_MAX_BYTES on the way, and the service gets its key. The staged file
 * is deleted once the service has answered: the service keeps what it needs under its own keys. A gateway
 * killed meanwhile leaves its staged file; every replica sweeps such files hourly (`sweep`).
 */
@Injectable()
export class Uploads implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly files: FileStore;
  private readonly sweeper: PeriodicTask;

  /** How long the service may take over a staged file (UPLOAD_TIMEOUT_MS). */
  get timeoutMs(): number {
    return this.deps.runtime.config.uploadTimeoutMs;
  }

  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {
    this.files = createFileStore(deps.runtime.config, deps.runtime.bus, { writer: true, bucket: 'UPLOADS' });
    this.sweeper = new PeriodicTask('staged upload sweep', SWEEP_INTERVAL_MS, () => this.sweep(new Date()), deps.runtime.logger);
  }

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.sweeper.stop();
  }

  /**
   * Removes staged files no request can still be using: staged (their last write) longer ago than the
   * service may take over one, plus an hour; and the store's leftovers of killed writes. Answers how many.
   */
  async sweep(now: Date): Promise<{ staged: number; leftovers: number }> {
    const before = new Date(now.getTime() - this.timeoutMs - 3_600_000);
    // A staged file is no row's: every one old enough goes.
    const staged = await removeUnnamedFiles(this.files, 'uploads/', before, async (keys) => keys);
    const swept = { staged, leftovers: await this.files.removeLeftovers(before) };
    if (swept.staged + swept.leftovers > 0) this.deps.runtime.logger.info(swept, 'staged uploads left by stopped requests removed');
    return swept;
  }

  /** The upload of an upload route (415 when the body is not one of its types); the body of any other route must not be one. */
  take(route: RouteDefinition, request: FastifyRequest): UploadBody | undefined {
    const body = request.body;
    if (body instanceof TextBody) {
      throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', `Send request bodies as ${route.upload ? acceptedTypes(route.upload) : 'application/json'}.`);
    }
    if (!route.upload) {
      if (body instanceof UploadBody) throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', `This endpoint takes JSON, not ${body.contentType}.`);
      return undefined;
    }
    if (!(body instanceof UploadBody)) {
      if (route.upload.orJson && !(body instanceof TextBody)) return undefined;
      throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', `Send the file as the request body with Content-Type ${route.upload.contentTypes[0]}.`);
    }
    if (!route.upload.contentTypes.includes(body.contentType)) {
      throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', `This endpoint takes ${acceptedTypes(route.upload)}, not ${body.contentType}.`);
    }
    // What the route's input validation sees: no JSON body.
    request.body = undefined;
    return body;
  }

  /** Streams the upload into the UPLOADS bucket: the body itself, or the one file part of a multipart body and its text fields. */
  async stage(route: RouteDefinition, upload: UploadBody, request: FastifyRequest): Promise<UploadRequestBody> {
    const limit = this.deps.runtime.config.uploadMaxBytes;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    if (upload.contentType === MULTIPART) return this.stageParts(upload, request, limit, new Set(route.upload?.fields ?? []));
    return { upload: await this.put(upload.stream, upload.contentType, limit) };
  }

  private async put(stream: Readable, contentType: string, limit: number, name?: string): Promise<UploadedFile> {
    const key = `uploads/${randomUUID()}`;
    let size = 0;
    async function* counted(source: Readable): AsyncIterable<Uint8Array> {
      for await (const chunk of source) {
        size += (chunk as Buffer).length;
        if (size > limit) throw tooLarge(limit);
        yield chunk as Buffer;
      }
    }
    try {
      await this.files.put(key, counted(stream));
    } catch (err) {
      await this.discard(key);
      throw stream.errored && !(err instanceof ProblemError) ? stoppedShort(stream) : err;
    }
    return { key, size, content_type: contentType, ...(name ? { name } : {}) };
  }

  /**
   * A multipart/form-data body: exactly one file part, streamed as it arrives (never held whole), and up to
   * MULTIPART_FIELDS short text fields the route names. Anything else is a 400 and leaves nothing staged.
   */
  private stageParts(upload: UploadBody, request: FastifyRequest, limit: number, known: Set<string>): Promise<UploadRequestBody> {
    return new Promise((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({ headers: request.headers, limits: { files: 1, fields: MULTIPART_FIELDS, parts: MULTIPART_FIELDS + 1, fieldSize: MULTIPART_FIELD_BYTES } });
      } catch {
        reject(badMultipart('the Content-Type has no multipart boundary'));
        return;
      }
      const fields: Record<string, string> = {};
      let file: Promise<UploadedFile> | undefined;
      let part: Readable | undefined;
      let failure: ProblemError | undefined;
      const fail = (problem: ProblemError) => {
        failure ??= problem;
        if (part && !part.readableEnded) part.destroy(new Error('upload refused')); // its store write fails and is discarded
        upload.stream.unpipe(parser);
        upload.stream.resume(); // read the rest, so the answer reaches the client
        void finish();
      };
      const finish = async () => {
        const staged = await file?.catch((err: unknown) => {
          failure ??= err instanceof ProblemError ? err : badMultipart('the file part could not be read');
          return undefined;
        });
        if (failure || !staged) {
          if (staged) await this.discard(staged.key);
          reject(failure ?? badMultipart('the body has no file part'));
          return;
        }
        resolve({ upload: staged, fields });
      };
      parser.on('field', (name, value, info) => {
        if (!known.has(name)) fail(badMultipart(`unknown field '${name.slice(0, 64)}'${known.size ? ` (fields: ${[...known].join(', ')})` : ''}`));
        else if (info.nameTruncated || info.valueTruncated) fail(badMultipart(`the field '${name.slice(0, 64)}' is longer than ${MULTIPART_FIELD_BYTES} bytes`));
        else fields[name] = value;
      });
      parser.on('file', (_field, stream, info) => {
        const name = info.filename ? info.filename.split(/[\\/]/).pop()!.slice(0, 255) : undefined;
        part = stream;
        stream.on('error', () => undefined); // reaches the store's write, which fails and is discarded
        file = this.put(stream, info.mimeType || 'application/octet-stream', limit, name);
        // A failed store stops reading the part; the rest of the body is drained by `fail`.
        file.catch((err: unknown) => fail(err instanceof ProblemError ? err : badMultipart('the file part could not be read')));
      });
      parser.on('filesLimit', () => fail(badMultipart('send one file part')));
      parser.on('fieldsLimit', () => fail(badMultipart(`send at most ${MULTIPART_FIELDS} fields`)));
      parser.on('partsLimit', () => fail(badMultipart(`send one file part and at most ${MULTIPART_FIELDS} fields`)));
      parser.on('error', () => fail(badMultipart('the multipart body is malformed')));
      parser.on('close', () => void finish());
      // A client gone mid-body (a reset, a dropped connection) ends nothing piped from its request: without
      // this the parser and the file part would wait for the rest forever, holding the staged write open.
      finished(upload.stream, (err) => err && fail(stoppedShort(upload.stream)));
      upload.stream.pipe(parser);
    });
  }

  async discard(key: string): Promise<void> {
    await this.files.delete(key).catch((err: unknown) => this.deps.runtime.logger.warn({ err, key }, 'could not delete a staged upload'));
  }
}
