import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CloneCheckRequest, CLONE_STEP_SUBJECTS as S, CloneSubAccountRequest, CloneUndoRequest, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { SubAccountClonesService } from './sub-account-clones.service.js';

/** identity's steps of a sub-account clone, asked by jobs (the check) and jobs-worker (the saga). */
@Controller()
export class SubAccountClonesHandlers {
  constructor(private readonly service: SubAccountClonesService) {}

  @Handles(S.identityCheck, { body: CloneCheckRequest })
  check(@Payload() { ctx, body }: RpcRequest<CloneCheckRequest>) {
    return this.service.check(ctx, body.source_ids, body.subdomains);
  }

  @Handles(S.identityCreate, { body: CloneSubAccountRequest })
  create(@Payload() { ctx, body }: RpcRequest<CloneSubAccountRequest>) {
    return this.service.create(ctx, body.clone_id, body.source_id, body.subdomain, body.name);
  }

  @Handles(S.identityActivate, { body: CloneUndoRequest })
  activate(@Payload() { ctx, body }: RpcRequest<CloneUndoRequest>) {
    return this.service.activate(ctx, body.clone_id);
  }

  @Handles(S.identityUndo, { body: CloneUndoRequest })
  async undo(@Payload() { ctx, body }: RpcRequest<CloneUndoRequest>) {
    return { removed: await this.service.undo(ctx, body.clone_id) };
  }
}
