import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type CreateDataDumpBody, DATA_DUMP_SUBJECTS as S, envelope, type RpcRequest } from '@lms/contracts';
import { Handles, reply } from '@lms/platform';
import { DataDumpsService } from './data-dumps.service.js';

@Controller()
export class DataDumpsHandlers {
  constructor(private readonly service: DataDumpsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx }: RpcRequest) {
    return envelope('data_dumps', await this.service.list(ctx));
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateDataDumpBody>) {
    return envelope('data_dumps', await this.service.create(ctx, body?.only ?? undefined));
  }

  @Handles(S.modelNames)
  async modelNames(@Payload() { ctx }: RpcRequest) {
    return { model_names: await this.service.modelNames(ctx) };
  }

  @Handles(S.download)
  async download(@Payload() { ctx }: RpcRequest) {
    return reply(undefined, { status: 302, headers: { location: await this.service.downloadUrl(ctx) } });
  }
}
