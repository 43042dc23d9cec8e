import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import {
  type ListTasksQuery,
  pageWindow,
  type RequestContext,
  TASK_CREATED_EVENT,
  TASK_DELETED_EVENT,
  TASK_UPDATED_EVENT,
  type TaskChanges,
  type TaskRequest,
  type TaskView,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { AuthoringGuard } from '../authoring/authoring-guard.js';
import { containsPattern } from '../course-templates/course-template-list.js';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { EnrollmentCounts } from '../enrollments/enrollment-counts.js';
import { EnrollmentLifecycle } from '../enrollments/enrollment-lifecycle.service.js';
import { ProgramsService } from '../programs/programs.service.js';
import { Task } from './task.entity.js';
import { approverInvalid, taskNotFound } from './task.errors.js';
import { taskEventData, toTaskView } from './task.views.js';

const FIELD_MAP = {
  title: 'title',
  instructions: 'instructions',
  description: 'description',
  structured_body: 'structuredBody',
  has_certificate: 'hasCertificate',
  open_enrollment: 'openEnrollment',
  requires_approval: 'requiresApproval',
  blocks_progress: 'blocksProgress',
  requires_evidence: 'requiresEvidence',
  attachments: 'attachments',
  default_approver_type: 'defaultApproverType',
  default_approver_id: 'defaultApproverId',
  due_date_type: 'dueDateType',
  default_due_on_date: 'defaultDueOnDate',
  default_days_until_due: 'defaultDaysUntilDue',
} as const satisfies Partial<Record<keyof TaskRequest, keyof Task>>;

/** What a clone copies: the body and the settings (not the id, the author, the publication or the enrollments). */
const CLONED: (keyof Task)[] = [...Object.values(FIELD_MAP), 'subAccountId'];

function fieldsOf(input: TaskChanges): Partial<Task> {
  const values: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(FIELD_MAP)) {
    const value = input[key as keyof TaskChanges];
    if (value !== undefined) values[property] = key === 'title' && typeof value === 'string' ? value.trim() : value;
  }
  return values as Partial<Task>;
}

/** Tasks (checkpoints): authored like courses, published by saving them with `is_published`. */
@Injectable()
export class TasksService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly guard: AuthoringGuard,
    private readonly directory: IdentityDirectory,
    private readonly enrollments: EnrollmentCounts,
    private readonly programs: ProgramsService,
    private readonly lifecycle: EnrollmentLifecycle,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
  ) {}

  async list(ctx: RequestContext, query: ListTasksQuery): Promise<[Task[], number]> {
    const { skip, take } = pageWindow(query);
    const qb = this.tasks.query(ctx, 't').andWhere('t.deleted_at IS NULL');
    if (query.search) qb.andWhere('t.title ILIKE :pattern', { pattern: containsPattern(query.search) });
    return qb.orderBy('t.created_at', 'DESC').addOrderBy('t.id', 'DESC').offset(skip).limit(take).getManyAndCount();
  }

  async find(scope: TenantScope, id: number): Promise<Task> {
    return (await this.tasks.findOne(scope, { id, deletedAt: IsNull() })) ?? Promise.reject(taskNotFound(id));
  }

  async create(ctx: RequestContext, inputs: TaskRequest[]): Promise<Task[]> {
    for (const [i, input] of inputs.entries()) await this.checkApprover(ctx, input, {}, `tasks[${i}]`);
    const { current } = await this.directory.subAccounts(ctx);
    return this.db.transaction(async () => {
      const created: Task[] = [];
      for (const input of inputs) {
        const published = input.is_published ?? false;
        const task = await this.tasks.insert(ctx, { ...fieldsOf(input), authorId: ctx.userId, subAccountId: current?.id ?? null, isPublished: published, hasUnpublishedChanges: !published });
        await this.outbox.add(ctx, TASK_CREATED_EVENT, taskEventData(task), String(task.id));
        created.push(await this.find(ctx, task.id));
      }
      return created;
    });
  }

  /** Any change leaves unpublished changes, unless the same request publishes (`is_published: true`). */
  async update(ctx: RequestContext, id: number, changes: TaskChanges): Promise<Task> {
    // Identity is asked before the row is locked (no call to another service under a lock); the shape is
    // checked again against the locked row, which a concurrent change may have moved since.
    await this.checkApprover(ctx, changes, await this.find(ctx, id), 'task');
    return this.db.transaction(async () => {
      const task = await this.lockForWrite(ctx, id);
      approverAfter(changes, task, 'task');
      const fields = fieldsOf(changes);
      const changed = Object.entries(fields).some(([key, value]) => JSON.stringify(task[key as keyof Task]) !== JSON.stringify(value));
      Object.assign(task, fields);
      if (task.defaultApproverType !== 'user') task.defaultApproverId = null;
      if (changed) task.hasUnpublishedChanges = true;
      if (changes.is_published === true) Object.assign(task, { isPublished: true, hasUnpublishedChanges: false });
      if (changes.is_published === false) Object.assign(task, { isPublished: false, hasUnpublishedChanges: true });
      const saved = await this.tasks.save(ctx, task);
      await this.outbox.add(ctx, TASK_UPDATED_EVENT, taskEventData(saved), String(id));
      return saved;
    });
  }

  /**
   * Soft delete: the row stays for the enrollments that point at it; for every endpoint it is gone, and it
   * leaves every program holding it (the task row is locked first, then the programs: the programs' lock order).
   * Its open enrollments are withdrawn, as a deleted user's are: nobody can do a task that is gone.
   */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const task = await this.lockForWrite(ctx, id);
      task.deletedAt = new Date();
      await this.tasks.save(ctx, task);
      await this.programs.removeTask(ctx, id);
      await this.lifecycle.withdrawTask(ctx, id);
      await this.outbox.add(ctx, TASK_DELETED_EVENT, taskEventData(task), String(id));
    });
  }

  /** Any author may copy a task they can read; they author the copy, which starts unpublished with no enrollments. */
  async clone(ctx: RequestContext, id: number): Promise<Task> {
    return this.db.transaction(async () => {
      const source = await this.find(ctx, id);
      const copy: Partial<Task> = Object.fromEntries(CLONED.map((key) => [key, source[key]]));
      const task = await this.tasks.insert(ctx, { ...copy, authorId: ctx.userId, isPublished: false, hasUnpublishedChanges: true });
      await this.outbox.add(ctx, TASK_CREATED_EVENT, taskEventData(task, source.id), String(task.id));
      return this.find(ctx, task.id);
    });
  }

  async present(ctx: RequestContext, tasks: Task[]): Promise<TaskView[]> {
    if (tasks.length === 0) return [];
    const people = tasks.flatMap((t) => [t.authorId, ...(t.defaultApproverId === null ? [] : [t.defaultApproverId])]);
    const [users, subAccounts, figures] = await Promise.all([
      this.directory.users(ctx, people),
      this.directory.subAccounts(ctx, tasks.flatMap((t) => (t.subAccountId === null ? [] : [t.subAccountId]))),
      this.enrollments.of(ctx, 'Task', tasks.map((t) => t.id)),
    ]);
    return tasks.map((task) => toTaskView(task, { users, subAccounts, figures }));
  }

  private async lockForWrite(ctx: RequestContext, id: number): Promise<Task> {
    // NO KEY UPDATE, what the UPDATE itself takes: a program's order written again does not wait on it.
    const task = await this.tasks.findOne(ctx, { id, deletedAt: IsNull() }, { lock: 'no key update' });
    if (!task) throw taskNotFound(id);
    await this.guard.assertCanWrite(ctx, { type: 'Task', id });
    return task;
  }

  /** A 'user' approver must name a live user of the account; 'manager' and none take no id. */
  private async checkApprover(ctx: RequestContext, input: TaskChanges, current: Partial<Task>, prefix: string): Promise<void> {
    const id = approverAfter(input, current, prefix);
    if (id === null) return;
    const user = (await this.directory.users(ctx, [id])).get(id);
    if (!user || user.deleted_at !== null) throw approverInvalid(`${prefix}.default_approver_id`, `no such user ${id}`);
  }
}

/** The user a change leaves as the task's approver (null: none, or not a user approver); a shape it cannot take is a 400. */
function approverAfter(input: TaskChanges, current: Partial<Task>, prefix: string): number | null {
  const type = input.default_approver_type !== undefined ? input.default_approver_type : (current.defaultApproverType ?? null);
  const id = input.default_approver_id !== undefined ? input.default_approver_id : (current.defaultApproverId ?? null);
  if (type !== 'user') {
    if (input.default_approver_id !== undefined && input.default_approver_id !== null) {
      throw approverInvalid(`${prefix}.default_approver_id`, "default_approver_id is only taken with default_approver_type 'user'");
    }
    return null;
  }
  if (id === null) throw approverInvalid(`${prefix}.default_approver_id`, "default_approver_type 'user' needs a default_approver_id");
  return id;
}
