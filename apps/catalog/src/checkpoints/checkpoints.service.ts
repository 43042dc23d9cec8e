import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import {
  type ApprovalState,
  type ApprovalView,
  type EnrollmentEntry,
  type EvidenceView,
  type ListApprovalsQuery,
  type ListEnrollmentsQuery,
  pageWindow,
  type RequestContext,
  shownApprovalState,
  storedApprovalState,
  type UploadRequestBody,
} from '@lms/contracts';
import {
  badRequest,
  conflict,
  createFileStore,
  Database,
  type FileStore,
  forbidden,
  InjectTenantRepository,
  isUniqueViolation,
  MESSAGE_BUS,
  type MessageBus,
  notFound,
  RUNTIME,
  type Runtime,
  signFileUrl,
  type TenantRepository,
} from '@lms/platform';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { EnrollmentLifecycle } from '../enrollments/enrollment-lifecycle.service.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { defaultDueAt, type EnrollResult, EnrollmentsService } from '../enrollments/enrollments.service.js';
import { ProgramGate } from '../programs/program-gate.js';
import { Task } from '../tasks/task.entity.js';
import { taskNotFound } from '../tasks/task.errors.js';
import { CheckpointApproval, CheckpointEvidence } from './checkpoint.entities.js';

const enrollmentNotYours = (id: number) => notFound('CHECKPOINT_ENROLLMENT_NOT_FOUND', `You have no checkpoint enrollment ${id}.`);
const alreadyComplete = (id: number) => badRequest('CHECKPOINT_COMPLETE', `Checkpoint enrollment ${id} is complete already.`);
const evidenceRequired = (id: number) => badRequest('EVIDENCE_REQUIRED', `Checkpoint enrollment ${id} needs evidence before it can be marked done.`);
const taskNotPublished = (id: number) => badRequest('TASK_NOT_PUBLISHED', `Task ${id} is not published: publish it before enrolling learners.`);
const approvalNotFound = (id: number) => notFound('APPROVAL_NOT_FOUND', `Approval ${id} does not exist.`);
const ownApproval = (id: number) => forbidden('OWN_APPROVAL', `Approval ${id} is of your own checkpoint: someone else decides it.`);
const notYourApproval = (id: number) => forbidden('NOT_THE_APPROVER', `You may not decide approval ${id}: its checkpoint names another approver.`);
const decided = (id: number, state: ApprovalState) => conflict('APPROVAL_DECIDED', `Approval ${id} is ${shownApprovalState(state)} already; a decision is made once.`);
const notNeeded = (id: number, enrollmentId: number) =>
  conflict('APPROVAL_NOT_NEEDED', `Approval ${id} waited on checkpoint enrollment ${enrollmentId}, which completed without it (its task stopped requiring approval): there is nothing to decide.`);

export const toApprovalView = (a: CheckpointApproval): ApprovalView => ({
  id: a.id,
  state: shownApprovalState(a.state),
  approver_id: a.approverId,
  comment: a.comment,
  decided_at: a.decidedAt?.toISOString() ?? null,
});

const evidenceEmpty = () => badRequest('EVIDENCE_EMPTY', 'Evidence needs a text or a file.');
const uploadGone = () => badRequest('UPLOAD_GONE', 'The uploaded file is gone; send it again.');
/** The longest text a multipart evidence may carry beside its file, as the JSON text's limit. */
const EVIDENCE_TEXT_MAX = 20_000;

/**
 * Checkpoints as learners do them (issue 22; docs/catalog.md "Checkpoints"): enrollments in tasks (the
 * enrollments table, enrollable_type 'Task'), evidence, and approvals decided once by the task's approver.
 * A checkpoint enrollment goes assigned → active (evidence given, or rejected) → pending approval → complete.
 */
@Injectable()
export class CheckpointsService {
  constructor(
    private readonly db: Database,
    private readonly enrollments: EnrollmentsService,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly directory: IdentityDirectory,
    private readonly gate: ProgramGate,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
    @InjectTenantRepository(CheckpointEvidence) private readonly evidence: TenantRepository<CheckpointEvidence>,
    @InjectTenantRepository(CheckpointApproval) private readonly approvals: TenantRepository<CheckpointApproval>,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Inject(MESSAGE_BUS) bus: MessageBus,
  ) {
    this.files = createFileStore(runtime.config, bus, { writer: true });
    this.uploads = createFileStore(runtime.config, bus, { writer: false, bucket: 'UPLOADS' });
  }

  private readonly files: FileStore;
  private readonly uploads: FileStore;

  /** Evidence as its readers see it: a file as a fresh signed URL (5 minutes) named as it was uploaded. */
  private toEvidenceView(e: CheckpointEvidence): EvidenceView {
    const fileUrl = e.fileKey ? signFileUrl(this.runtime.config.fileUrlSigningKey, e.fileKey, e.fileName ?? 'evidence') : null;
    return { id: e.id, text: e.text, file_url: fileUrl, created_at: e.createdAt.toISOString() };
  }

  async list(ctx: RequestContext, taskId: number, query: ListEnrollmentsQuery): Promise<[Enrollment[], number]> {
    this.enrollments.assertMayManage(ctx);
    if (!(await this.tasks.findOne(ctx, { id: taskId }))) throw taskNotFound(taskId);
    return this.enrollments.listOf(ctx, { type: 'Task', id: taskId }, query);
  }

  /** Users and groups' learners (as they are now) into a published, live checkpoint; enrolled ones are skipped. */
  async enroll(ctx: RequestContext, taskId: number, entries: EnrollmentEntry[]): Promise<EnrollResult> {
    this.enrollments.assertMayManage(ctx);
    if (!(await this.tasks.findOne(ctx, { id: taskId }))) throw taskNotFound(taskId);
    const targets = await this.enrollments.resolve(ctx, entries);
    return this.db.transaction(async () => {
      const task = await this.tasks.query(ctx, 't').andWhere('t.id = :id', { id: taskId }).setLock('pessimistic_read').getOne();
      if (!task || task.deletedAt) throw taskNotFound(taskId);
      if (!task.isPublished) throw taskNotPublished(taskId);
      return this.enrollments.insertEnrollments(ctx, { type: 'Task', id: task.id, dueAt: defaultDueAt(task) }, targets.list);
    });
  }

  /** The latest approval and the evidence of each enrollment, for the views. */
  async detailsOf(ctx: RequestContext, enrollmentIds: number[]): Promise<{ approvals: Map<number, CheckpointApproval>; evidence: Map<number, EvidenceView[]> }> {
    if (enrollmentIds.length === 0) return { approvals: new Map(), evidence: new Map() };
    const [approvals, evidence] = await Promise.all([
      this.approvals.find(ctx, { where: { enrollmentId: In(enrollmentIds) }, order: { id: 'ASC' } }),
      this.evidence.find(ctx, { where: { enrollmentId: In(enrollmentIds) }, order: { id: 'ASC' } }),
    ]);
    const latest = new Map(approvals.map((a) => [a.enrollmentId, a]));
    const byEnrollment = new Map<number, EvidenceView[]>();
    for (const e of evidence) byEnrollment.set(e.enrollmentId, [...(byEnrollment.get(e.enrollmentId) ?? []), this.toEvidenceView(e)]);
    return { approvals: latest, evidence: byEnrollment };
  }

  /**
   * The caller adds evidence to their own open checkpoint enrollment: a text, or a file (a multipart upload the
   * gateway staged) with an optional text. It starts the enrollment.
   */
  async addEvidence(ctx: RequestContext, enrollmentId: number, text: string): Promise<EvidenceView> {
    return this.recordEvidence(ctx, enrollmentId, { text });
  }

  async addEvidenceFile(ctx: RequestContext, enrollmentId: number, { upload, fields }: UploadRequestBody): Promise<EvidenceView> {
    const text = fields?.text?.trim() ? fields.text : null;
    if (text !== null && text.length > EVIDENCE_TEXT_MAX) throw badRequest('EVIDENCE_TEXT_TOO_LONG', `The evidence text is longer than ${EVIDENCE_TEXT_MAX} characters.`);
    if (upload.size === 0 && text === null) throw evidenceEmpty();
    // Refused before the file is copied: another learner's enrollment, or a complete one, keeps nothing.
    const e = await this.db.transaction(() => this.own(ctx, enrollmentId));
    if (e.state === 'complete') throw alreadyComplete(enrollmentId);
    await this.gate.assertStartable(ctx, e);
    const opened = await this.uploads.open(upload.key);
    if (!opened) throw uploadGone();
    const key = `evidence/${ctx.accountId}/${enrollmentId}/${randomUUID()}`;
    await this.files.put(key, opened.stream);
    try {
      return await this.recordEvidence(ctx, enrollmentId, { text, fileKey: key, fileName: upload.name ?? 'evidence' });
    } catch (err) {
      await this.files.delete(key).catch(() => undefined);
      throw err;
    }
  }

  private recordEvidence(ctx: RequestContext, enrollmentId: number, evidence: Pick<CheckpointEvidence, 'text'> & Partial<Pick<CheckpointEvidence, 'fileKey' | 'fileName'>>): Promise<EvidenceView> {
    return this.db.transaction(async () => {
      const e = await this.own(ctx, enrollmentId);
      if (e.state === 'complete') throw alreadyComplete(enrollmentId);
      await this.gate.assertStartable(ctx, e);
      const row = await this.evidence.insert(ctx, { enrollmentId, userId: ctx.userId, ...evidence });
      await this.lifecycle.moveCheckpoint(ctx, e, 'active');
      return this.toEvidenceView(row);
    });
  }

  /**
   * The caller marks their checkpoint done: evidence first when the task requires it; then complete, or a
   * pending approval when the task requires one (a second call while it waits changes nothing).
   */
  async complete(ctx: RequestContext, enrollmentId: number): Promise<Enrollment> {
    return this.db.transaction(async () => {
      const e = await this.own(ctx, enrollmentId);
      if (e.state === 'complete') return e;
      await this.gate.assertStartable(ctx, e);
      const task = await this.tasks.findOne(ctx, { id: e.enrollableId });
      if (!task) throw enrollmentNotYours(enrollmentId);
      if (task.requiresEvidence && (await this.evidence.count(ctx, { enrollmentId })) === 0) throw evidenceRequired(enrollmentId);
      if (!task.requiresApproval) return this.lifecycle.moveCheckpoint(ctx, e, 'complete');
      if (!(await this.approvals.findOne(ctx, { enrollmentId, state: 'pending' }))) {
        await this.approvals.insert(ctx, { enrollmentId, taskId: task.id, userId: ctx.userId, state: 'pending' }).catch((err: unknown) => {
          if (!isUniqueViolation(err)) throw err; // a concurrent complete made it: one pending submission
        });
      }
      return this.lifecycle.moveCheckpoint(ctx, e, 'active');
    });
  }

  /**
   * An author takes a learner out of a checkpoint (204): the enrollment is removed as history, like a course
   * enrollment; its pending approval is no longer listed nor decidable. Another task's enrollment is a 404.
   */
  async remove(ctx: RequestContext, taskId: number, enrollmentId: number): Promise<void> {
    this.enrollments.assertMayManage(ctx);
    await this.lifecycle.remove(ctx, enrollmentId, { type: 'Task', id: taskId });
  }

  /** Approvals the caller may decide: all of the account for administrators, else the ones naming them. */
  async listApprovals(ctx: RequestContext, query: ListApprovalsQuery): Promise<[CheckpointApproval[], number]> {
    this.enrollments.assertMayManage(ctx);
    const state = storedApprovalState(query.state ?? 'incomplete');
    const qb = this.approvals.query(ctx, 'a').andWhere('a.state = :state', { state });
    // A pending approval waits on a live, open enrollment; one whose learner was taken out (or deleted), or whose
    // checkpoint completed without it (the task stopped requiring approval), waits on nothing.
    if (state === 'pending') {
      qb.andWhere(`EXISTS (SELECT 1 FROM "${this.db.schema}".enrollments e WHERE e.account_id = a.account_id AND e.id = a.enrollment_id AND e.deleted_at IS NULL AND e.state <> 'complete')`);
    }
    const rows = await qb.orderBy('a.id', 'DESC').getMany();
    const mine = ctx.roles.includes('admin') ? rows : await this.decidable(ctx, rows);
    const { skip, take } = pageWindow(query);
    return [mine.slice(skip, skip + take), mine.length];
  }

  /**
   * Decides a pending approval, once: approve completes the enrollment; reject opens it again with the
   * comment. The approval's row lock orders concurrent decisions: the first wins, the others are a 409, as is
   * one whose checkpoint completed meanwhile without it (it stays undecided: `incomplete`).
   */
  async decide(ctx: RequestContext, id: number, decision: 'approved' | 'rejected', comment: string | null | undefined): Promise<CheckpointApproval> {
    this.enrollments.assertMayManage(ctx);
    return this.db.transaction(async () => {
      const approval = await this.approvals.query(ctx, 'a').andWhere('a.id = :id', { id }).setLock('pessimistic_write').getOne();
      if (!approval) throw approvalNotFound(id);
      if (approval.userId === ctx.userId) throw ownApproval(id);
      if (!ctx.roles.includes('admin') && (await this.decidable(ctx, [approval])).length === 0) throw notYourApproval(id);
      if (approval.state !== 'pending') throw decided(id, approval.state);
      const e = await this.lifecycle.lockLive(ctx, approval.enrollmentId, 'Task').catch(() => Promise.reject(approvalNotFound(id)));
      // A decision now would leave a complete checkpoint rejected, or approve what needed no approval.
      if (e.state === 'complete') throw notNeeded(id, e.id);
      Object.assign(approval, { state: decision, approverId: ctx.userId, comment: comment ?? null, decidedAt: new Date() });
      const saved = await this.approvals.save(ctx, approval);
      await this.lifecycle.moveCheckpoint(ctx, e, decision === 'approved' ? 'complete' : 'active');
      return saved;
    });
  }

  /**
   * Who decides (docs/catalog.md): `manager` the learner's manager; `user` the task's default approver;
   * none the task's author. Of `rows`, those the caller is that person for.
   */
  private async decidable(ctx: RequestContext, rows: CheckpointApproval[]): Promise<CheckpointApproval[]> {
    if (rows.length === 0) return [];
    const tasks = new Map((await this.tasks.find(ctx, { where: { id: In([...new Set(rows.map((r) => r.taskId))]) } })).map((t) => [t.id, t]));
    const needsManager = rows.some((r) => tasks.get(r.taskId)?.defaultApproverType === 'manager');
    const learners = needsManager ? await this.directory.users(ctx, [...new Set(rows.map((r) => r.userId))]) : new Map();
    return rows.filter((r) => {
      const task = tasks.get(r.taskId);
      if (!task || r.userId === ctx.userId) return false;
      if (task.defaultApproverType === 'manager') return learners.get(r.userId)?.manager_id === ctx.userId;
      if (task.defaultApproverType === 'user') return task.defaultApproverId === ctx.userId;
      return task.authorId === ctx.userId;
    });
  }

  /** The caller's own live checkpoint enrollment, locked; anyone else's is a 404. */
  private async own(ctx: RequestContext, enrollmentId: number): Promise<Enrollment> {
    const e = await this.lifecycle.lockLive(ctx, enrollmentId, 'Task').catch(() => undefined);
    if (!e || e.userId !== ctx.userId) throw enrollmentNotYours(enrollmentId);
    return e;
  }
}
