import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CloneCopyRequest, CLONE_STEP_SUBJECTS as S, CloneUndoRequest, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { SchedulingClonesService } from './scheduling-clones.service.js';

/** scheduling's step of a sub-account clone and its compensation, asked by jobs-worker. */
@Controller()
export class SchedulingClonesHandlers {
  constructor(private readonly service: SchedulingClonesService) {}

  @Handles(S.schedulingCopy, { body: CloneCopyRequest })
  copy(@Payload() { ctx, body }: RpcRequest<CloneCopyRequest>) {
    return this.service.copy(ctx, body);
  }

  @Handles(S.schedulingUndo, { body: CloneUndoRequest })
  async undo(@Payload() { ctx, body }: RpcRequest<CloneUndoRequest>) {
    return { removed: await this.service.undo(ctx, body.clone_id) };
  }
}
