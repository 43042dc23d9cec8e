import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  envelope,
  GROUP_SUBJECTS as S,
  type AddGroupLearnersBody,
  type GroupLearnerParams,
  type GroupParams,
  type ListGroupLearnersQuery,
  type RpcRequest,
} from '@lms/contracts';
import { Handles, noContent, paged, reply, type TenantScope } from '@lms/platform';
import { LearnerFiguresService } from '../learner-figures/learner-figures.service.js';
import { GroupLearnersService, type GroupLearners } from './group-learners.service.js';
import { toGroupView, toLearnerView } from './group.views.js';

@Controller()
export class GroupLearnersHandlers {
  constructor(
    private readonly service: GroupLearnersService,
    private readonly figures: LearnerFiguresService,
  ) {}

  /** The spec's envelope: the group side-loaded under `linked.groups`, its learners with their figures under `learners`. */
  private async learnersEnvelope(scope: TenantScope, { group, learners }: GroupLearners) {
    const figures = await this.figures.of(scope, learners.map((user) => user.id));
    return envelope('learners', learners.map((user) => toLearnerView(user, group.group.id, figures.get(user.id))), { groups: [toGroupView(group.group, group.usersCount)] });
  }

  @Handles(S.addLearners)
  async add(@Payload() { ctx, params, body }: RpcRequest<AddGroupLearnersBody, object, GroupParams>) {
    const added = await this.service.add(ctx, params.group_id, body.users.map((u) => u.user_id));
    return reply(await this.learnersEnvelope(ctx, added), { status: 201 });
  }

  @Handles(S.listLearners)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListGroupLearnersQuery, GroupParams>) {
    const [page, total] = await this.service.list(ctx, params.group_id, query);
    return paged(await this.learnersEnvelope(ctx, page), total);
  }

  @Handles(S.removeLearner)
  async remove(@Payload() { ctx, params }: RpcRequest<unknown, object, GroupLearnerParams>) {
    await this.service.remove(ctx, params.group_id, params.id);
    return noContent();
  }
}
