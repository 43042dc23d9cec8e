import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type ApprovalDecisionBody,
  CHECKPOINT_SUBJECTS as S,
  type CheckpointEnrollmentParams,
  type CreateEnrollmentsBody,
  type CreateEvidenceBody,
  envelope,
  type IdParams,
  type ListApprovalsQuery,
  type ListEnrollmentsQuery,
  type RequestContext,
  type RpcRequest,
  type TaskEnrollmentParams,
  type UploadRequestBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import type { Enrollment } from '../enrollments/enrollment.entity.js';
import { toEnrollmentView } from '../enrollments/enrollment.views.js';
import type { CheckpointApproval } from './checkpoint.entities.js';
import { CheckpointsService, toApprovalView } from './checkpoints.service.js';

@Controller()
export class CheckpointsHandlers {
  constructor(private readonly checkpoints: CheckpointsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListEnrollmentsQuery, IdParams>) {
    const [rows, total] = await this.checkpoints.list(ctx, params.id, query);
    return paged(await this.present(ctx, rows, query.state === 'removed'), total);
  }

  @Handles(S.enroll)
  async enroll(@Payload() { ctx, params, body }: RpcRequest<CreateEnrollmentsBody, object, IdParams>) {
    const { created, skipped } = await this.checkpoints.enroll(ctx, params.id, body.enrollments);
    return reply({ ...(await this.present(ctx, created)), skipped }, { status: 201 });
  }

  @Handles(S.remove)
  async remove(@Payload() { ctx, params }: RpcRequest<unknown, object, TaskEnrollmentParams>) {
    await this.checkpoints.remove(ctx, params.id, params.enrollment_id);
    return noContent();
  }

  @Handles(S.evidence)
  async evidence(@Payload() { ctx, params, body }: RpcRequest<CreateEvidenceBody | UploadRequestBody, object, CheckpointEnrollmentParams>) {
    const evidence = 'upload' in body ? await this.checkpoints.addEvidenceFile(ctx, params.enrollment_id, body) : await this.checkpoints.addEvidence(ctx, params.enrollment_id, body.evidence.text);
    return reply(envelope('evidence', [evidence]), { status: 201 });
  }

  @Handles(S.complete)
  async complete(@Payload() { ctx, params }: RpcRequest<unknown, object, CheckpointEnrollmentParams>) {
    return this.present(ctx, [await this.checkpoints.complete(ctx, params.enrollment_id)]);
  }

  @Handles(S.approvals)
  async approvals(@Payload() { ctx, query }: RpcRequest<unknown, ListApprovalsQuery>) {
    const [rows, total] = await this.checkpoints.listApprovals(ctx, query);
    return paged(envelope('approvals', rows.map(toApprovalItem)), total);
  }

  @Handles(S.approve)
  async approve(@Payload() { ctx, params, body }: RpcRequest<ApprovalDecisionBody, object, IdParams>) {
    return envelope('approvals', [toApprovalItem(await this.checkpoints.decide(ctx, params.id, 'approved', body?.comment))]);
  }

  @Handles(S.reject)
  async reject(@Payload() { ctx, params, body }: RpcRequest<ApprovalDecisionBody, object, IdParams>) {
    return envelope('approvals', [toApprovalItem(await this.checkpoints.decide(ctx, params.id, 'rejected', body?.comment))]);
  }

  private async present(ctx: RequestContext, rows: Enrollment[], history = false) {
    const { approvals, evidence } = await this.checkpoints.detailsOf(ctx, rows.map((r) => r.id));
    return envelope(
      'enrollments',
      rows.map((e) => {
        const { course_template_id: _course, ...view } = toEnrollmentView(e, { history });
        const approval = approvals.get(e.id);
        return { ...view, task_id: e.enrollableId, approval: approval ? toApprovalView(approval) : null, evidence: evidence.get(e.id) ?? [] };
      }),
    );
  }
}

const toApprovalItem = (a: CheckpointApproval) => ({ ...toApprovalView(a), task_id: a.taskId, enrollment_id: a.enrollmentId, user_id: a.userId, created_at: a.createdAt.toISOString() });
