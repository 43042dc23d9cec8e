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
   * `linked.program_enrollments`), `skipped` and `skipped_courses`.
   */
  @Handles(S.enroll)
  async enroll(@Payload() { ctx, params, body }: RpcRequest<CreateProgramEnrollmentsBody, object, IdParams>) {
    const { created, skipped, skippedCourses, programEnrollments } = await this.programEnrollments.enroll(ctx, params.id, body.enrollments);
    const users = await this.directory.users(ctx, created.map((e) => e.userId));
    const learners = [...new Set(created.map((e) => e.userId))].map((id) => toLearnerView(id, users.get(id)));
    const program_enrollments = await this.programEnrollments.present(ctx, params.id, programEnrollments);
    const answer = envelope('enrollments', created.map((e) => toEnrollmentView(e, { history: false })), { learners, program_enrollments });
    return reply({ ...answer, skipped, skipped_courses: skippedCourses }, { status: 201 });
  }

  @Handles(S.enrollments)
  async enrollments(@Payload() { ctx, params, query }: RpcRequest<unknown, ListProgramEnrollmentsQuery, IdParams>) {
    const [rows, total] = await this.programEnrollments.list(ctx, params.id, query);
    return paged(envelope('program_enrollments', rows), total);
  }
}
