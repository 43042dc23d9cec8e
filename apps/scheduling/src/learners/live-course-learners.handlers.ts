import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type EnrollLiveCourseLearnersBody,
  envelope,
  LIVE_COURSE_LEARNER_SUBJECTS as S,
  type ListLiveCourseLearnersQuery,
  type LiveCourseLearnerParams,
  type LiveCourseParams,
  type RpcRequest,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { LiveCourseLearnersService } from './live-course-learners.service.js';

@Controller()
export class LiveCourseLearnersHandlers {
  constructor(private readonly learners: LiveCourseLearnersService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListLiveCourseLearnersQuery, LiveCourseParams>) {
    const [rows, total] = await this.learners.list(ctx, params.live_course_id, query);
    return paged(envelope('learners', rows), total);
  }

  @Handles(S.enroll)
  async enroll(@Payload() { ctx, params, body }: RpcRequest<EnrollLiveCourseLearnersBody, object, LiveCourseParams>) {
    const rows = await this.learners.enroll(ctx, params.live_course_id, body.learners.map((l) => l.user_id));
    return reply(envelope('learners', rows), { status: 201 });
  }

  @Handles(S.remove)
  async remove(@Payload() { ctx, params }: RpcRequest<unknown, object, LiveCourseLearnerParams>) {
    await this.learners.remove(ctx, params.live_course_id, params.live_course_enrollment_id);
    return noContent();
  }
}
