import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CLONE_OBJECT_SUBJECTS as S, type CreateCloneObjectsBody, envelope, type IdParams, type ListCloneObjectsQuery, type RpcRequest } from '@lms/contracts';
import { Handles, paged } from '@lms/platform';
import { CloneObjectsService } from './clone-objects.service.js';

@Controller()
export class CloneObjectsHandlers {
  constructor(private readonly service: CloneObjectsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListCloneObjectsQuery>) {
    const { rows, total } = await this.service.list(ctx, query);
    return paged(envelope('clone_objects', rows), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('clone_objects', await this.service.show(ctx, params.id));
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateCloneObjectsBody>) {
    return envelope('clone_objects', await this.service.create(ctx, body.clone_objects));
  }
}
