import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type CourseTemplateParams,
  type CreateSlidesBody,
  envelope,
  type ListSlidesQuery,
  type RpcRequest,
  SLIDE_SUBJECTS as S,
  type SlideParams,
  type UpdateSlideBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { toSlideView } from './slide.views.js';
import { SlidesService } from './slides.service.js';

@Controller()
export class SlidesHandlers {
  constructor(private readonly slides: SlidesService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListSlidesQuery, CourseTemplateParams>) {
    const [slides, total] = await this.slides.list(ctx, params.course_template_id, query);
    return paged(envelope('slides', slides.map(toSlideView)), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, SlideParams>) {
    return envelope('slides', [toSlideView(await this.slides.show(ctx, params.course_template_id, params.id))]);
  }

  @Handles(S.create)
  async create(@Payload() { ctx, params, body }: RpcRequest<CreateSlidesBody, object, CourseTemplateParams>) {
    const slides = await this.slides.create(ctx, params.course_template_id, body.slides);
    return reply(envelope('slides', slides.map(toSlideView)), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateSlideBody, object, SlideParams>) {
    return envelope('slides', [toSlideView(await this.slides.update(ctx, params.course_template_id, params.id, body.slide))]);
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, SlideParams>) {
    await this.slides.delete(ctx, params.course_template_id, params.id);
    return noContent();
  }
}
