import { Injectable } from '@nestjs/common';
import type { ListProgramEnrollmentsQuery, ProgramEnrollmentEntry, ProgramEnrollmentView, RequestContext, SkippedEnrollmentView, SkippedProgramCourseView, SkippedProgramTaskView } from '@lms/contracts';
import { pageWindow } from '@lms/contracts';
import { IsNull } from 'typeorm';
import { Database, DepartedUsers, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import type { Enrollment } from '../enrollments/enrollment.entity.js';
import { defaultDueAt, EnrollmentsService, type Target } from '../enrollments/enrollments.service.js';
import { Task } from '../tasks/task.entity.js';
import { ProgramEnrollment } from './program-enrollment.entity.js';
import { ProgramProgress } from './program-progress.js';
import { Program } from './program.entity.js';
import type { ProgramItem } from './program.views.js';
import { programNotFound, programNotPublished } from './program.errors.js';
import { ProgramsService } from './programs.service.js';

export interface ProgramEnrollResult {
  created: Enrollment[];
  skipped: (SkippedEnrollmentView & { course_template_id: string })[];
  skippedCourses: SkippedProgramCourseView[];
  /** Checkpoint enrollments made (enrollable_type 'Task'), in program order. */
  createdTasks: Enrollment[];
  skippedTaskEnrollments: (SkippedEnrollmentView & { task_id: string })[];
  skippedTasks: SkippedProgramTaskView[];
  /** Each user's live enrollment in the program, made now or before. */
  programEnrollments: ProgramEnrollment[];
  /** Users deleted since identity vouched for them: left out of everything (DepartedUsers). */
  departed: Set<number>;
}

const ITEM_OUTCOME_KEYS = ['created', 'skipped', 'skippedCourses', 'createdTasks', 'skippedTaskEnrollments', 'skippedTasks'] as const;
type ItemOutcome = Partial<Pick<ProgramEnrollResult, (typeof ITEM_OUTCOME_KEYS)[number]>>;

/**
 * Enrolling users in a program enrolls them in each of its published courses and checkpoints (tasks), in
 * program order, through the enrollment feature's ways to enroll (so due dates, skips and events are the
 * item's own), with the program recorded on every enrollment. All items or none: one transaction.
 */
@Injectable()
export class ProgramEnrollmentsService {
  constructor(
    private readonly db: Database,
    private readonly programs: ProgramsService,
    private readonly enrollments: EnrollmentsService,
    @InjectTenantRepository(Program) private readonly programRows: TenantRepository<Program>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
    @InjectTenantRepository(ProgramEnrollment) private readonly programEnrollments: TenantRepository<ProgramEnrollment>,
    private readonly progress: ProgramProgress,
    private readonly departed: DepartedUsers,
  ) {}

  async enroll(ctx: RequestContext, programId: number, entries: ProgramEnrollmentEntry[]): Promise<ProgramEnrollResult> {
    this.enrollments.assertMayManage(ctx);
    return this.enrollEntries(ctx, programId, entries);
  }

  /**
   * Enrolls without the authors' check: for callers with their own rule (open enrollment: the learner enrolls
   * themselves), which `admit` checks again on the program as held, so a change committed meanwhile is seen.
   */
  async enrollEntries(ctx: RequestContext, programId: number, entries: ProgramEnrollmentEntry[], admit: (program: Program) => void = () => undefined): Promise<ProgramEnrollResult> {
    // Another account's (or a deleted) program is a 404 before anything about the learners is told.
    if (!(await this.programRows.findOne(ctx, { id: programId, deletedAt: IsNull() }))) throw programNotFound(programId);
    // Checked with identity before anything is written (the courses' own path checks again): an unknown user enrolls nobody.
    const learners = await this.enrollments.resolve(ctx, entries.map((e) => ({ user_id: e.user_id, required: e.required, end_at: e.end_at })));
    const result = await this.db.transaction(async () => {
      // The program, its order and every item of it stay as they are until the enrollments commit: an item
      // published meanwhile waits for them, so its own reach finds these learners (the programs' lock order).
      const held = await this.programs.holdWithItems(ctx, programId);
      if (!held) throw programNotFound(programId);
      admit(held.program);
      if (!held.program.isPublished) throw programNotPublished(programId);
      // Written in one order whatever the program's (courses, then tasks, each by id): two programs holding the
      // same courses in other orders took their counter rows and enrollment keys in opposite orders, a deadlock.
      // Answered in the program's order.
      const outcomes = new Map<ProgramItem, ItemOutcome>();
      for (const item of [...held.items].sort((a, b) => a.type.localeCompare(b.type) || a.id - b.id)) {
        outcomes.set(item, await this.enrollItem(ctx, item, learners.list, programId));
      }
      const result: ProgramEnrollResult = { created: [], skipped: [], skippedCourses: [], createdTasks: [], skippedTaskEnrollments: [], skippedTasks: [], programEnrollments: [], departed: new Set() };
      for (const item of held.items) {
        const outcome = outcomes.get(item)!;
        for (const key of ITEM_OUTCOME_KEYS) (result[key] as unknown[]).push(...(outcome[key] ?? []));
      }
      Object.assign(result, await this.recordProgramEnrollments(ctx, programId, entries));
      return result;
    });
    // A learner who had completed every course already completes the program now.
    await this.progress.completeAllDone(ctx, programId, result.programEnrollments.filter((e) => !e.completedAt).map((e) => e.userId));
    return result;
  }

  /** The enrollments of one item of the program: a task's or course's, or why it was skipped. */
  private async enrollItem(ctx: RequestContext, item: ProgramItem, learners: Target[], programId: number): Promise<ItemOutcome> {
    if (item.type === 'Task') {
      const task = await this.tasks.findOne(ctx, { id: item.id });
      if (!task || task.deletedAt || !task.isPublished) return { skippedTasks: [{ task_id: String(item.id), reason: 'not_published' }] };
      const { created, skipped } = await this.enrollments.insertEnrollments(ctx, { type: 'Task', id: task.id, dueAt: defaultDueAt(task) }, learners, { programId });
      return { createdTasks: created, skippedTaskEnrollments: skipped.map((s) => ({ ...s, task_id: String(task.id) })) };
    }
    const course = await this.courses.findOne(ctx, { id: item.id });
    if (!course?.isPublished) return { skippedCourses: [{ course_template_id: String(item.id), reason: 'not_published' }] };
    // The learners identity vouched for once, for every item: asking again per course was 20 round trips of
    // 1,000 users for a program of 20 courses. holdWithItems holds the course, so it is still published.
    const { created, skipped } = await this.enrollments.enrollKnown(ctx, item.id, learners, { programId });
    return { created, skipped: skipped.map((s) => ({ ...s, course_template_id: String(item.id) })) };
  }

  /**
   * One live program enrollment per user (a repeated or concurrent request keeps the first): the first
   * entry naming a user decides `required` and the due moment.
   */
  private async recordProgramEnrollments(
    ctx: RequestContext,
    programId: number,
    entries: ProgramEnrollmentEntry[],
  ): Promise<{ programEnrollments: ProgramEnrollment[]; departed: Set<number> }> {
    const first = new Map<number, ProgramEnrollmentEntry>();
    for (const e of entries) if (!first.has(e.user_id)) first.set(e.user_id, e);
    // A user deleted meanwhile is left out, as from the courses (DepartedUsers).
    const departed = await this.departed.among(ctx, [...first.keys()]);
    for (const userId of departed) first.delete(userId);
    await this.programEnrollments.insertNew(
      ctx,
      // By user id: two requests naming the same users in other orders would wait on each other's keys in a cycle.
      [...first.values()].sort((a, b) => a.user_id - b.user_id).map((e) => ({ programId, userId: e.user_id, subAccountId: ctx.subAccountId, required: e.required ?? true, dueAt: e.end_at ? new Date(e.end_at) : null })),
    );
    const programEnrollments = await this.programEnrollments
      .query(ctx, 'pe')
      .andWhere('pe.program_id = :programId AND pe.user_id = ANY(:users) AND pe.deleted_at IS NULL', { programId, users: [...first.keys()] })
      .orderBy('pe.id', 'ASC')
      .getMany();
    return { programEnrollments, departed };
  }

  /** The program's live enrollments, newest first, by state, and their total. */
  async list(ctx: RequestContext, programId: number, query: ListProgramEnrollmentsQuery): Promise<[ProgramEnrollmentView[], number]> {
    this.enrollments.assertMayManage(ctx);
    await this.programs.find(ctx, programId);
    const { skip, take } = pageWindow(query);
    const qb = this.programEnrollments.query(ctx, 'pe').andWhere('pe.program_id = :programId AND pe.deleted_at IS NULL', { programId });
    if (query.state === 'complete') qb.andWhere('pe.completed_at IS NOT NULL');
    if (query.state === 'incomplete') qb.andWhere('pe.completed_at IS NULL');
    const [rows, total] = await qb.orderBy('pe.created_at', 'DESC').addOrderBy('pe.id', 'DESC').skip(skip).take(take).getManyAndCount();
    return [await this.present(ctx, programId, rows), total];
  }

  /** The records with each learner's standing in the program's published courses and checkpoints. */
  async present(scope: TenantScope, programId: number, rows: ProgramEnrollment[]): Promise<ProgramEnrollmentView[]> {
    const standings = await this.progress.standings(scope, programId, rows.map((r) => r.userId));
    return rows.map((r) => {
      const standing = standings.get(r.userId);
      return {
        id: String(r.id),
        program_id: String(r.programId),
        user_id: String(r.userId),
        state: r.completedAt ? 'complete' : 'incomplete',
        required: r.required,
        end_at: r.dueAt?.toISOString() ?? null,
        completed_at: r.completedAt?.toISOString() ?? null,
        courses_count: standing?.courses ?? 0,
        completed_courses_count: standing?.completedCourses ?? 0,
        tasks_count: standing?.tasks ?? 0,
        completed_tasks_count: standing?.completedTasks ?? 0,
        created_at: r.createdAt.toISOString(),
        updated_at: r.updatedAt.toISOString(),
      };
    });
  }
}
