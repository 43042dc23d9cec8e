import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, OPEN_ENROLLMENT_SUBJECTS as S, type OpenCourseParams, type OpenProgramParams, type OpenTaskParams, type RpcRequest } from '@lms/contracts';
import { Handles, reply } from '@lms/platform';
import { OpenEnrollmentService } from './open-enrollment.service.js';

@Controller()
export class OpenEnrollmentHandlers {
  constructor(private readonly open: OpenEnrollmentService) {}

  @Handles(S.enrollTask)
  async enrollTask(@Payload() { ctx, params }: RpcRequest<unknown, object, OpenTaskParams>) {
    return reply(envelope('enrollments', await this.open.enrollInTask(ctx, params.open_task_id)), { status: 201 });
  }

  @Handles(S.taskEnrollments)
  async taskEnrollments(@Payload() { ctx, params }: RpcRequest<unknown, object, OpenTaskParams>) {
    return envelope('enrollments', await this.open.taskEnrollments(ctx, params.open_task_id));
  }

  @Handles(S.enrollCourse)
  async enrollCourse(@Payload() { ctx, params }: RpcRequest<unknown, object, OpenCourseParams>) {
    return reply(envelope('enrollments', await this.open.enrollInCourse(ctx, params.open_course_id)), { status: 201 });
  }

  @Handles(S.courseEnrollments)
  async courseEnrollments(@Payload() { ctx, params }: RpcRequest<unknown, object, OpenCourseParams>) {
    return envelope('enrollments', await this.open.courseEnrollments(ctx, params.open_course_id));
  }

  @Handles(S.enrollProgram)
  async enrollProgram(@Payload() { ctx, params }: RpcRequest<unknown, object, OpenProgramParams>) {
    return reply(envelope('enrollments', await this.open.enrollInProgram(ctx, params.open_program_id)), { status: 201 });
  }

  @Handles(S.programEnrollments)
  async programEnrollments(@Payload() { ctx, params }: RpcRequest<unknown, object, OpenProgramParams>) {
    return envelope('enrollments', await this.open.enrollmentsInProgram(ctx, params.open_program_id));
  }
}
