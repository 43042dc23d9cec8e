import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type CompleteRetainQuizBody, envelope, type IdParams, RETAIN_QUIZ_SUBJECTS as S, type RpcRequest, type UpdateRetainQuizBody } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { RetainQuizzesService, toRetainQuizView } from './retain-quizzes.service.js';

@Controller()
export class RetainQuizzesHandlers {
  constructor(private readonly quizzes: RetainQuizzesService) {}

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('quizzes', [toRetainQuizView(await this.quizzes.show(ctx, params.id))]);
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateRetainQuizBody, object, IdParams>) {
    return envelope('quizzes', [toRetainQuizView(await this.quizzes.start(ctx, params.id, body.quiz.started_at))]);
  }

  @Handles(S.complete)
  async complete(@Payload() { ctx, params, body }: RpcRequest<CompleteRetainQuizBody | undefined, object, IdParams>) {
    return envelope('quizzes', [toRetainQuizView(await this.quizzes.complete(ctx, params.id, body?.quiz?.score))]);
  }
}
