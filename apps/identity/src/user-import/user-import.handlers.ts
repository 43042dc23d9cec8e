import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type ImportRowsReply, ImportRowsRequest, type RpcRequest, USER_IMPORT_SUBJECTS as S } from '@lms/contracts';
import { forbidden, Handles } from '@lms/platform';
import { UserImportService } from './user-import.service.js';

/** The import worker's batches of CSV rows (docs/jobs.md "Scheduled CSV imports"); administrators' context only. */
@Controller()
export class UserImportHandlers {
  constructor(private readonly imports: UserImportService) {}

  @Handles(S.rows, { body: ImportRowsRequest })
  async rows(@Payload() { ctx, body }: RpcRequest<ImportRowsRequest>): Promise<ImportRowsReply> {
    if (!ctx.roles.includes('admin')) throw forbidden('IMPORT_FORBIDDEN', 'Only an administrator may import users.');
    return this.imports.importRows(ctx, body.rows, body.dry_run);
  }
}
