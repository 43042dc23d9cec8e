import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, IMPORT_RUN_SUBJECTS as S, type ImportRunParams, type ListImportRunsQuery, type RpcRequest, type RunImportQuery } from '@lms/contracts';
import { Handles, paged, reply } from '@lms/platform';
import { ImportRunsService } from './import-runs.service.js';

@Controller()
export class ImportRunsHandlers {
  constructor(private readonly runs: ImportRunsService) {}

  /** 202: the run is recorded `pending`; the worker does it. */
  @Handles(S.run)
  async run(@Payload() { ctx, query }: RpcRequest<unknown, RunImportQuery>) {
    return reply(envelope('import_runs', [await this.runs.run(ctx, query.dry_run ?? false)]), { status: 202 });
  }

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListImportRunsQuery>) {
    const { rows, total } = await this.runs.list(ctx, query);
    return paged(envelope('import_runs', rows), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, ImportRunParams>) {
    return envelope('import_runs', [await this.runs.show(ctx, params.id)]);
  }
}
