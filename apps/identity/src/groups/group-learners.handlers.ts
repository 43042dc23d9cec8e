import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  GROUP_SUBJECTS as S,
  type AddGroupLearnersBody,
  type GroupLearnerParams,
  type GroupParams,
  type ListGroupLearnersQuery,
  type RpcRequest,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { GroupLearnersService, type GroupLearners } from './group-learners.service.js';
import { toGroupView, toLearnerView } from './group.views.js';

/** The spec's envelope: the group side-loaded under `linked.groups`, its learners under `learners`. */
const envelope = ({ group, learners }: GroupLearners) => ({
  meta: {},
  linked: { groups: [toGroupView(group.group, group.usersCount)] },
  learners: learners.map((user) => toLearnerView(user, group.group.id)),
});

@Controller()
export class GroupLearnersHandlers {
  constructor(private readonly service: GroupLearnersService) {}

  @Handles(S.addLearners)
  async add(@Payload() { ctx, params, body }: RpcRequest<AddGroupLearnersBody, object, GroupParams>) {
    const added = await this.service.add(ctx, params.group_id, body.users.map((u) => u.user_id));
    return reply(envelope(added), { status: 201 });
  }

  @Handles(S.listLearners)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListGroupLearnersQuery, GroupParams>) {
    const [page, total] = await this.service.list(ctx, params.group_id, query);
    return paged(envelope(page), total);
  }

  @Handles(S.removeLearner)
  async remove(@Payload() { ctx, params }: RpcRequest<unknown, object, GroupLearnerParams>) {
    await this.service.remove(ctx, params.group_id, params.id);
    return noContent();
  }
}
