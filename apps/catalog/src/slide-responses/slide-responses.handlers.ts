import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  envelope,
  type LearnerSlidesParams,
  type ListLearnerSlidesQuery,
  type RpcRequest,
  SLIDE_RESPONSE_SUBJECTS as S,
  type SlideCommentsParams,
  type SlideResponseBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { SlideResponsesService } from './slide-responses.service.js';

@Controller()
export class SlideResponsesHandlers {
  constructor(private readonly responses: SlideResponsesService) {}

  @Handles(S.slides)
  async slides(@Payload() { ctx, params, query }: RpcRequest<unknown, ListLearnerSlidesQuery, LearnerSlidesParams>) {
    const [views, total] = await this.responses.list(ctx, params.course_id, query);
    return paged(envelope('slides', views), total);
  }

  @Handles(S.slide)
  async slide(@Payload() { ctx, params }: RpcRequest<unknown, object, SlideCommentsParams>) {
    return envelope('slides', [await this.responses.show(ctx, params.course_id, params.slide_id)]);
  }

  @Handles(S.create)
  async create(@Payload() { ctx, params, body }: RpcRequest<SlideResponseBody, object, SlideCommentsParams>) {
    const view = await this.responses.answer(ctx, params.course_id, params.slide_id, body.response.choice_ids);
    return reply({ response: view }, { status: 201 });
  }

  @Handles(S.view)
  async view(@Payload() { ctx, params }: RpcRequest<unknown, object, SlideCommentsParams>) {
    await this.responses.view(ctx, params.course_id, params.slide_id);
    return noContent();
  }
}
