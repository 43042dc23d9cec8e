import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  envelope,
  type ListSlideCommentsQuery,
  type RateSlideCommentParams,
  type RpcRequest,
  SLIDE_COMMENT_SUBJECTS as S,
  type SlideCommentBody,
  type SlideCommentParams,
  type SlideCommentsParams,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { SlideCommentsService } from './slide-comments.service.js';

@Controller()
export class SlideCommentsHandlers {
  constructor(private readonly comments: SlideCommentsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListSlideCommentsQuery, SlideCommentsParams>) {
    const [views, total] = await this.comments.list(ctx, params.course_id, params.slide_id, query);
    return paged(envelope('comments', views), total);
  }

  @Handles(S.create)
  async create(@Payload() { ctx, params, body }: RpcRequest<SlideCommentBody, object, SlideCommentsParams>) {
    return reply(envelope('comments', [await this.comments.create(ctx, params.course_id, params.slide_id, body.comment.body.trim())]), { status: 201 });
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, SlideCommentParams>) {
    return envelope('comments', [await this.comments.show(ctx, params.course_id, params.slide_id, params.id)]);
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<SlideCommentBody, object, SlideCommentParams>) {
    return envelope('comments', [await this.comments.update(ctx, params.course_id, params.slide_id, params.id, body.comment.body.trim())]);
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, SlideCommentParams>) {
    await this.comments.delete(ctx, params.course_id, params.slide_id, params.id);
    return noContent();
  }

  @Handles(S.rate)
  async rate(@Payload() { ctx, params }: RpcRequest<unknown, object, RateSlideCommentParams>) {
    return envelope('comments', [await this.comments.upvote(ctx, params.course_id, params.slide_id, params.comment_id)]);
  }
}
