import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type CreateDownloadBody, DOWNLOAD_SUBJECTS as S, type DownloadParams, type RpcRequest } from '@lms/contracts';
import { Handles, reply } from '@lms/platform';
import { DownloadsService } from './downloads.service.js';

@Controller()
export class DownloadsHandlers {
  constructor(private readonly service: DownloadsService) {}

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateDownloadBody>) {
    return { download: await this.service.create(ctx, body) };
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, Record<string, unknown>, DownloadParams>) {
    return { download: await this.service.show(ctx, params.id) };
  }

  @Handles(S.file)
  async file(@Payload() { ctx, params }: RpcRequest<unknown, Record<string, unknown>, DownloadParams>) {
    return reply(undefined, { status: 302, headers: { location: await this.service.fileUrl(ctx, params.id) } });
  }
}
