import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { IMPORT_PROFILE_SUBJECTS as S, type ImportSourceReply, type RpcRequest, type UpdateImportProfileBody, USER_IMPORT_SUBJECTS } from '@lms/contracts';
import { forbidden, Handles, reply } from '@lms/platform';
import { ImportProfileService } from './import-profile.service.js';

@Controller()
export class ImportProfileHandlers {
  constructor(private readonly service: ImportProfileService) {}

  /** The spec answers the import profile object directly, without an envelope. */
  @Handles(S.show)
  show(@Payload() { ctx }: RpcRequest) {
    return this.service.show(ctx);
  }

  @Handles(S.update)
  update(@Payload() { ctx, body }: RpcRequest<UpdateImportProfileBody>) {
    return this.service.update(ctx, body);
  }

  @Handles(S.file)
  async file(@Payload() { ctx }: RpcRequest) {
    return reply(await this.service.csvFile(ctx), {
      headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="import-profile.csv"' },
    });
  }

  /** The import worker's view of the profile, with the password: no route leads here; administrators' context only. */
  @Handles(USER_IMPORT_SUBJECTS.source, {})
  source(@Payload() { ctx }: RpcRequest): Promise<ImportSourceReply> {
    if (!ctx.roles.includes('admin')) throw forbidden('IMPORT_FORBIDDEN', 'Only an administrator may run an import.');
    return this.service.source(ctx);
  }
}
