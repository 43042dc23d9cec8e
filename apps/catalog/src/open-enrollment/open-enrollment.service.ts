import { Injectable } from '@nestjs/common';
import { type FindOptionsWhere, IsNull } from 'typeorm';
import type { LearningItemView, RequestContext } from '@lms/contracts';
import { Database, InjectTenantRepository, type RowLock, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { enrollmentSettings } from '../course-templates/course-template.views.js';
import { type EnrollableType, Enrollment } from '../enrollments/enrollment.entity.js';
import { defaultDueAt, EnrollmentsService } from '../enrollments/enrollments.service.js';
import { LearningItemsService } from '../learner-courses/learning-items.service.js';
import { ProgramEnrollmentsService } from '../programs/program-enrollments.service.js';
import { Program } from '../programs/program.entity.js';
import { ProgramsService } from '../programs/programs.service.js';
import { Task } from '../tasks/task.entity.js';
import { alreadyEnrolled, callerDeleted, enrollmentRaced, isCallerRefused, notOpen, type OpenItemKind, openItemNotFound } from './open-enrollment.errors.js';

const isUuid = (key: string) => key.includes('-');

/**
 * Open enrollment (docs/learner.md): a learner enrolls themselves in a published course, task or program that
 * has `open_enrollment` on, named by id or by its enrollment profile's uuid. Self-made enrollments are
 * optional (the learner may leave them) and take the item's default due dates.
 */
@Injectable()
export class OpenEnrollmentService {
  constructor(
    private readonly db: Database,
    private readonly enroller: EnrollmentsService,
    private readonly programEnrollments: ProgramEnrollmentsService,
    private readonly programsService: ProgramsService,
    private readonly items: LearningItemsService,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Program) private readonly programs: TenantRepository<Program>,
  ) {}

  async enrollInTask(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    return this.enrollInItem(ctx, 'task', key, () => this.lockItem(ctx, this.tasks, 'task', key));
  }

  async taskEnrollments(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    return this.itemEnrollments(ctx, 'Task', await this.findItem(ctx, this.tasks, 'task', key));
  }

  /** A course's `enroll_url` (docs/catalog.md): a published, live course with `open_enrollment` on, as a task. */
  async enrollInCourse(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    return this.enrollInItem(ctx, 'course', key, () => this.lockItem(ctx, this.courses, 'course', key));
  }

  async courseEnrollments(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    return this.itemEnrollments(ctx, 'CourseTemplate', await this.findItem(ctx, this.courses, 'course', key));
  }

  /** The caller, optional, in the course or task `lock` holds, with its default due date. */
  private async enrollInItem(ctx: RequestContext, kind: 'course' | 'task', key: string, lock: () => Promise<Task | CourseTemplate>): Promise<LearningItemView[]> {
    const created = await this.db.transaction(async () => {
      const item = await lock();
      if (!item.isPublished || !item.openEnrollment) throw notOpen(kind, key);
      // The one-live-enrollment key decides a race: the second request inserts nothing and is told so. A
      // learner deleted meanwhile is left out (DepartedUsers), and their request finds nothing to enroll.
      const target = { userId: ctx.userId, subAccountId: item.subAccountId, required: false, dueAt: undefined, groupId: null };
      const type = kind === 'task' ? 'Task' : 'CourseTemplate';
      // A course's due dates as last published, as every enrollment of it takes them; a task keeps no published copy.
      const dueAt = defaultDueAt(item instanceof CourseTemplate ? enrollmentSettings(item) : item);
      const { created, skipped, departed } = await this.enroller.insertEnrollments(ctx, { type, id: item.id, dueAt }, [target]);
      if (departed.size > 0) throw callerDeleted();
      // Neither made nor found: the enrollment the insert met was removed before it could be named.
      if (created.length === 0) throw skipped.length > 0 ? alreadyEnrolled(kind, key) : enrollmentRaced(kind, key);
      return created;
    });
    return this.items.present(ctx, created);
  }

  private async itemEnrollments(ctx: RequestContext, type: EnrollableType, item: { id: number }): Promise<LearningItemView[]> {
    const rows = await this.enrollments.find(ctx, { where: { enrollableType: type, enrollableId: item.id, userId: ctx.userId, deletedAt: IsNull() }, order: { id: 'ASC' } });
    return this.items.present(ctx, rows);
  }

  async enrollInProgram(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    const program = await this.findProgram(ctx, key);
    const assertOpen = (p: Program) => {
      if (!p.isPublished || !p.openEnrollment) throw notOpen('program', key);
    };
    assertOpen(program);
    const created = await this.db.transaction(async () => {
      if (await this.inProgram(ctx, program.id)) throw alreadyEnrolled('program', key);
      // Open still once the program is held: an author closing or unpublishing it meanwhile enrolls nobody.
      const result = await this.programEnrollments.enrollEntries(ctx, program.id, [{ user_id: ctx.userId, required: false }], assertOpen).catch((err: unknown) => {
        throw isCallerRefused(err) ? callerDeleted() : err;
      });
      if (result.departed.size > 0) throw callerDeleted();
      if (result.programEnrollments.length === 0) throw enrollmentRaced('program', key);
      if (result.skipped.length > 0 && result.created.length === 0) throw alreadyEnrolled('program', key);
      if (result.created.length === 0) {
        // Neither made nor found: with no published course the program is not open; with one, the enrollment
        // the insert met was removed before it could be named (the program's order is held, so this is so still).
        const courses = await this.programsService.courseIdsOf(ctx, program.id);
        throw courses.length > result.skippedCourses.length ? enrollmentRaced('program', key) : notOpen('program', key);
      }
      return result.created;
    });
    return this.items.present(ctx, created);
  }

  async enrollmentsInProgram(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    const program = await this.findProgram(ctx, key);
    const rows = await this.enrollments.find(ctx, { where: { programId: program.id, userId: ctx.userId, deletedAt: IsNull() }, order: { id: 'ASC' } });
    return this.items.present(ctx, rows);
  }

  private inProgram(scope: TenantScope & { userId: number }, programId: number): Promise<boolean> {
    return this.enrollments.count(scope, { programId, userId: scope.userId, deletedAt: IsNull() }).then((n) => n > 0);
  }

  /**
   * The course, task or program by id or uuid. A deleted one is a 404, as an unknown one: a deleted task or program
   * is gone for every endpoint (docs/catalog.md), an archived course for learners.
   */
  private async findItem<T extends Task | CourseTemplate | Program>(ctx: RequestContext, repo: TenantRepository<T>, kind: OpenItemKind, key: string, lock?: RowLock): Promise<T> {
    const where = { ...(isUuid(key) ? { uuid: key.toLowerCase() } : { id: Number(key) }), deletedAt: IsNull() } as FindOptionsWhere<T>;
    return (await repo.findOne(ctx, where, lock ? { lock } : {})) ?? Promise.reject(openItemNotFound(kind, key));
  }

  /** The live course or task, share-locked so a deletion or unpublish waits for the enrollment (and it for them). */
  private lockItem<T extends Task | CourseTemplate>(ctx: RequestContext, repo: TenantRepository<T>, kind: 'course' | 'task', key: string): Promise<T> {
    return this.findItem(ctx, repo, kind, key, 'share');
  }

  private findProgram(ctx: RequestContext, key: string): Promise<Program> {
    return this.findItem(ctx, this.programs, 'program', key);
  }
}
