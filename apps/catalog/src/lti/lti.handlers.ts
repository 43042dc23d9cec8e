import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type CourseEnrollmentsParams, type CreateLtiContentItemsBody, envelope, type IdParams, LTI_SUBJECTS as S, type LtiLaunchQuery, type RpcRequest } from '@lms/contracts';
import { Handles, noContent, reply } from '@lms/platform';
import { LtiService, toAuthorView } from './lti.service.js';

@Controller()
export class LtiHandlers {
  constructor(private readonly lti: LtiService) {}

  @Handles(S.create)
  async create(@Payload() { ctx, params, body }: RpcRequest<CreateLtiContentItemsBody, object, CourseEnrollmentsParams>) {
    const items = await this.lti.create(ctx, params.course_template_id, body.lti_content_items);
    return reply(envelope('lti_content_items', items.map(toAuthorView)), { status: 201 });
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    const { item } = await this.lti.forLearner(ctx, params.id);
    return envelope('lti_content_items', [{ id: item.id, title: item.title, description: item.description }]);
  }

  @Handles(S.complete)
  async complete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.lti.complete(ctx, params.id);
    return noContent();
  }

  @Handles(S.launch)
  async launch(@Payload() { ctx, query }: RpcRequest<unknown, LtiLaunchQuery>) {
    return this.lti.launch(ctx, query.lti_content_item_id, query.program_id);
  }
}
