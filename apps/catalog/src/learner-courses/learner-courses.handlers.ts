import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, type IdParams, LEARNER_COURSE_SUBJECTS as C, LEARNING_ITEM_SUBJECTS as I, type RpcRequest } from '@lms/contracts';
import { Handles, noContent, reply } from '@lms/platform';
import { RetainQuizzesService, toRetainQuizView } from '../retain-quizzes/retain-quizzes.service.js';
import { LearnerCoursesService } from './learner-courses.service.js';
import { LearningItemsService } from './learning-items.service.js';

@Controller()
export class LearnerCoursesHandlers {
  constructor(
    private readonly courses: LearnerCoursesService,
    private readonly items: LearningItemsService,
    private readonly quizzes: RetainQuizzesService,
  ) {}

  @Handles(C.list)
  async list(@Payload() { ctx }: RpcRequest) {
    return envelope('courses', await this.courses.list(ctx));
  }

  @Handles(C.preview)
  async preview(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('courses', [await this.courses.preview(ctx, params.id)]);
  }

  @Handles(C.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('courses', [await this.courses.show(ctx, params.id)]);
  }

  @Handles(C.complete)
  async complete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    const { view, enrollment } = await this.courses.complete(ctx, params.id);
    // The completion event schedules them too; doing it now lets the answer show them (the second time is a no-op).
    const quizzes = await this.quizzes.schedule(ctx, enrollment);
    return envelope('courses', [view], { quizzes: quizzes.map((q) => toRetainQuizView(q)) });
  }

  @Handles(C.leave)
  async leave(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.courses.leave(ctx, params.id);
    return noContent();
  }

  @Handles(C.externalInfo)
  async externalInfo(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return reply({ external_info: await this.courses.externalInfo(ctx, params.id) });
  }

  @Handles(I.list)
  async itemList(@Payload() { ctx }: RpcRequest) {
    return envelope('learning_items', await this.items.list(ctx));
  }

  @Handles(I.show)
  async item(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('learning_items', [await this.items.show(ctx, params.id)]);
  }

  @Handles(I.delete)
  async leaveItem(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.items.leave(ctx, params.id);
    return noContent();
  }
}
