import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type CreateProgramEnrollmentsBody,
  type CreateProgramsBody,
  envelope,
  type IdParams,
  type ListProgramEnrollmentsQuery,
  type ListProgramsQuery,
  PROGRAM_SUBJECTS as S,
  type RpcRequest,
  type UpdateProgramBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { toEnrollmentView, toLearnerView } from '../enrollments/enrollment.views.js';
import { ProgramEnrollmentsService } from './program-enrollments.service.js';
import { ProgramsService } from './programs.service.js';

@Controller()
export class ProgramsHandlers {
  constructor(
    private readonly programs: ProgramsService,
    private readonly programEnrollments: ProgramEnrollmentsService,
    private readonly directory: IdentityDirectory,
  ) {}

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListProgramsQuery>) {
    const [programs, total] = await this.programs.list(ctx, query);
    return paged(envelope('programs', await this.programs.present(ctx, programs)), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('programs', await this.programs.present(ctx, [await this.programs.find(ctx, params.id)]));
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateProgramsBody>) {
    return reply(envelope('programs', await this.programs.present(ctx, await this.programs.create(ctx, body.programs))), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateProgramBody, object, IdParams>) {
    return envelope('programs', await this.programs.present(ctx, [await this.programs.update(ctx, params.id, body.program)]));
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.programs.delete(ctx, params.id);
    return noContent();
  }

  /**
   * 201 with the course enrollments made (learners in `linked.learners`, each user's program enrollment in
   * `linked.program_enrollments`), the checkpoint enrollments made (`task_enrollments`), `skipped` (with
   * `course_template_id` or `task_id`), `skipped_courses` and `skipped_tasks`.
   */
  @Handles(S.enroll)
  async enroll(@Payload() { ctx, params, body }: RpcRequest<CreateProgramEnrollmentsBody, object, IdParams>) {
    const { created, skipped, skippedCourses, createdTasks, skippedTaskEnrollments, skippedTasks, programEnrollments } = await this.programEnrollments.enroll(ctx, params.id, body.enrollments);
    const everyone = [...created, ...createdTasks].map((e) => e.userId);
    const users = await this.directory.users(ctx, everyone);
    const learners = [...new Set(everyone)].map((id) => toLearnerView(id, users.get(id)));
    const program_enrollments = await this.programEnrollments.present(ctx, params.id, programEnrollments);
    const answer = envelope('enrollments', created.map((e) => toEnrollmentView(e, { history: false })), { learners, program_enrollments });
    const task_enrollments = createdTasks.map((e) => {
      const { course_template_id: _course, ...view } = toEnrollmentView(e, { history: false });
      return { ...view, task_id: e.enrollableId, approval: null, evidence: [] };
    });
    return reply({ ...answer, task_enrollments, skipped: [...skipped, ...skippedTaskEnrollments], skipped_courses: skippedCourses, skipped_tasks: skippedTasks }, { status: 201 });
  }

  @Handles(S.enrollments)
  async enrollments(@Payload() { ctx, params, query }: RpcRequest<unknown, ListProgramEnrollmentsQuery, IdParams>) {
    const [rows, total] = await this.programEnrollments.list(ctx, params.id, query);
    return paged(envelope('program_enrollments', rows), total);
  }
}
