import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, type IdParams, MOBILE_SUBJECTS as S, type MobileCoursesQuery, type MobileTasksQuery, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { MobileService } from './mobile.service.js';

@Controller()
export class MobileHandlers {
  constructor(private readonly mobile: MobileService) {}

  @Handles(S.courses)
  async courses(@Payload() { ctx, query }: RpcRequest<unknown, MobileCoursesQuery>) {
    return envelope('items', await this.mobile.courseItems(ctx, query.course_template_ids));
  }

  @Handles(S.course)
  async course(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return this.mobile.course(ctx, params.id);
  }

  @Handles(S.tasks)
  async tasks(@Payload() { ctx, query }: RpcRequest<unknown, MobileTasksQuery>) {
    return envelope('items', await this.mobile.taskItems(ctx, query.task_ids));
  }

  @Handles(S.task)
  async task(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return this.mobile.task(ctx, params.id);
  }
}
