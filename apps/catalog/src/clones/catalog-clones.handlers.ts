import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CloneCopyRequest, CLONE_STEP_SUBJECTS as S, CloneUndoRequest, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { CatalogClonesService } from './catalog-clones.service.js';

/** catalog's step of a sub-account clone and its compensation, asked by jobs-worker. */
@Controller()
export class CatalogClonesHandlers {
  constructor(private readonly service: CatalogClonesService) {}

  @Handles(S.catalogCopy, { body: CloneCopyRequest })
  copy(@Payload() { ctx, body }: RpcRequest<CloneCopyRequest>) {
    return this.service.copy(ctx, body);
  }

  @Handles(S.catalogUndo, { body: CloneUndoRequest })
  async undo(@Payload() { ctx, body }: RpcRequest<CloneUndoRequest>) {
    return { removed: await this.service.undo(ctx, body.clone_id) };
  }
}
