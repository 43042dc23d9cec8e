import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  envelope,
  GROUP_SUBJECTS as S,
  type CreateGroupsBody,
  type IdParams,
  type ListGroupsQuery,
  type RpcRequest,
  type UpdateGroupBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { toGroupView } from './group.views.js';
import { type CountedGroup, GroupsService } from './groups.service.js';

const groupsEnvelope = (groups: CountedGroup[]) => envelope('groups', groups.map(({ group, usersCount }) => toGroupView(group, usersCount)));

@Controller()
export class GroupsHandlers {
  constructor(private readonly service: GroupsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListGroupsQuery>) {
    const [groups, total] = await this.service.list(ctx, query);
    return paged(groupsEnvelope(groups), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return groupsEnvelope([await this.service.show(ctx, params.id)]);
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateGroupsBody>) {
    return reply(groupsEnvelope(await this.service.create(ctx, body.groups)), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateGroupBody, object, IdParams>) {
    return groupsEnvelope([await this.service.update(ctx, params.id, body.group)]);
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.service.delete(ctx, params.id);
    return noContent();
  }
}
