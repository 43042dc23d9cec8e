import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type CourseEnrollmentsParams,
  type CreateEnrollmentsBody,
  ENROLLMENT_SUBJECTS as S,
  envelope,
  type IdParams,
  type ListEnrollmentsQuery,
  type RequestContext,
  type RpcRequest,
  type UpdateEnrollmentBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { IdentityDirectory } from '../directory/identity-directory.js';
import type { Enrollment } from './enrollment.entity.js';
import { EnrollmentLifecycle } from './enrollment-lifecycle.service.js';
import { toEnrollmentView, toLearnerView } from './enrollment.views.js';
import { EnrollmentsService } from './enrollments.service.js';

@Controller()
export class EnrollmentsHandlers {
  constructor(
    private readonly enrollments: EnrollmentsService,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly directory: IdentityDirectory,
  ) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListEnrollmentsQuery, CourseEnrollmentsParams>) {
    this.enrollments.assertMayManage(ctx);
    const [rows, total] = await this.enrollments.list(ctx, params.course_template_id, query);
    return paged(await this.present(ctx, rows, query.state === 'removed'), total);
  }

  @Handles(S.create)
  async create(@Payload() { ctx, params, body }: RpcRequest<CreateEnrollmentsBody, object, CourseEnrollmentsParams>) {
    this.enrollments.assertMayManage(ctx);
    const { created, skipped } = await this.enrollments.enroll(ctx, params.course_template_id, body.enrollments);
    return reply({ ...(await this.present(ctx, created)), skipped }, { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateEnrollmentBody, object, IdParams>) {
    this.enrollments.assertMayManage(ctx);
    const enrollment = await this.lifecycle.update(ctx, params.id, body.enrollments[0]);
    return this.present(ctx, [enrollment]);
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    this.enrollments.assertMayManage(ctx);
    await this.lifecycle.remove(ctx, params.id);
    return noContent();
  }

  /** The records, with their learners side-loaded in `linked.learners` (one directory request per page). */
  private async present(ctx: RequestContext, rows: Enrollment[], history = false) {
    const users = await this.directory.users(ctx, rows.map((r) => r.userId));
    const learners = [...new Set(rows.map((r) => r.userId))].map((id) => toLearnerView(id, users.get(id)));
    return envelope('enrollments', rows.map((r) => toEnrollmentView(r, { history })), { learners });
  }
}
