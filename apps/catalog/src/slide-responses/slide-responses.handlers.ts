import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type RpcRequest, SLIDE_RESPONSE_SUBJECTS as S, type SlideCommentsParams, type SlideResponseBody } from '@lms/contracts';
import { Handles, reply } from '@lms/platform';
import { SlideResponsesService } from './slide-responses.service.js';

@Controller()
export class SlideResponsesHandlers {
  constructor(private readonly responses: SlideResponsesService) {}

  @Handles(S.create)
  async create(@Payload() { ctx, params, body }: RpcRequest<SlideResponseBody, object, SlideCommentsParams>) {
    const view = await this.responses.answer(ctx, params.course_id, params.slide_id, body.response.choice_ids);
    return reply({ response: view }, { status: 201 });
  }
}
