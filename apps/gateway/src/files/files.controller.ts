import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { createFileStore, type FileStore } from '@lms/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError } from '../http/problem.js';
import { fileUrlCheckOf } from './link-credential.js';
import { sendStream } from './stream-reply.js';

const CONTENT_TYPES: Record<string, string> = { zip: 'application/zip', csv: 'text/csv; charset=utf-8', json: 'application/json' };

/** `attachment; filename="a.csv"; filename*=UTF-8''a.csv`: a plain fallback and the exact name (RFC 6266). */
export function contentDisposition(name: string): string {
  const plain = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * Files at signed URLs (docs/jobs.md): no bearer token, the URL is the credential. The signature covers the
 * path, the expiry and the download name; a URL that does not verify, or has expired, is a 403. The file
 * streams from the store to the client, never read whole into memory.
 */
@Controller()
export class FilesController {
  private readonly files: FileStore;

  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {
    this.files = createFileStore(deps.runtime.config, deps.runtime.bus, { writer: false });
  }

  @Get('files/*')
  async download(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const check = fileUrlCheckOf(request, this.deps.runtime.config.fileUrlSigningKey);
    if (!check.ok && check.reason === 'expired') throw new ProblemError(403, 'FILE_URL_EXPIRED', 'This download link has expired: ask for the file again.');
    if (!check.ok) throw new ProblemError(403, 'FILE_URL_INVALID', 'This download link is not valid.');
    const file = await this.files.open(check.fileKey);
    if (!file) throw new ProblemError(404, 'FILE_NOT_FOUND', 'The file is no longer available.');
    const extension = check.name.split('.').pop()?.toLowerCase() ?? '';
    reply
      .header('content-type', CONTENT_TYPES[extension] ?? 'application/octet-stream')
      .header('content-length', String(file.size))
      .header('content-disposition', contentDisposition(check.name))
      .header('cache-control', 'private, no-store');
    await sendStream(request, reply, file.stream);
  }
}
