import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import type { LearningItemView, RequestContext } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { defaultDueAt, EnrollmentsService } from '../enrollments/enrollments.service.js';
import { LearningItemsService } from '../learner-courses/learning-items.service.js';
import { ProgramEnrollmentsService } from '../programs/program-enrollments.service.js';
import { Program } from '../programs/program.entity.js';
import { ProgramsService } from '../programs/programs.service.js';
import { Task } from '../tasks/task.entity.js';
import { alreadyEnrolled, callerDeleted, enrollmentRaced, isCallerRefused, notOpen, openItemNotFound } from './open-enrollment.errors.js';

const isUuid = (key: string) => key.includes('-');

/**
 * Open enrollment (docs/learner.md): a learner enrolls themselves in a published task or program that
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
    @InjectTenantRepository(Program) private readonly programs: TenantRepository<Program>,
  ) {}

  async enrollInTask(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    const created = await this.db.transaction(async () => {
      const task = await this.lockTask(ctx, key);
      if (!task.isPublished || !task.openEnrollment) throw notOpen('task', key);
      // The one-live-enrollment key decides a race: the second request inserts nothing and is told so. A
      // learner deleted meanwhile is left out (DepartedUsers), and their request finds nothing to enroll.
      const target = { userId: ctx.userId, subAccountId: task.subAccountId, required: false, dueAt: undefined, groupId: null };
      const { created, skipped, departed } = await this.enroller.insertEnrollments(ctx, { type: 'Task', id: task.id, dueAt: defaultDueAt(task) }, [target]);
      if (departed.size > 0) throw callerDeleted();
      // Neither made nor found: the enrollment the insert met was removed before it could be named.
      if (created.length === 0) throw skipped.length > 0 ? alreadyEnrolled('task', key) : enrollmentRaced('task', key);
      return created;
    });
    return this.items.present(ctx, created);
  }

  async taskEnrollments(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    const task = await this.findTask(ctx, key);
    const rows = await this.enrollments.find(ctx, { where: { enrollableType: 'Task', enrollableId: task.id, userId: ctx.userId, deletedAt: IsNull() }, order: { id: 'ASC' } });
    return this.items.present(ctx, rows);
  }

  async enrollInProgram(ctx: RequestContext, key: string): Promise<LearningItemView[]> {
    const program = await this.findProgram(ctx, key);
    if (!program.isPublished || !program.openEnrollment) throw notOpen('program', key);
    const created = await this.db.transaction(async () => {
      if (await this.inProgram(ctx, program.id)) throw alreadyEnrolled('program', key);
      const result = await this.programEnrollments.enrollEntries(ctx, program.id, [{ user_id: ctx.userId, required: false }]).catch((err: unknown) => {
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

  /** A deleted task is gone for every endpoint (docs/catalog.md "Tasks"): a 404, as an unknown one. */
  private async findTask(ctx: RequestContext, key: string): Promise<Task> {
    const task = await this.tasks.findOne(ctx, { ...(isUuid(key) ? { uuid: key.toLowerCase() } : { id: Number(key) }), deletedAt: IsNull() });
    return task ?? Promise.reject(openItemNotFound('task', key));
  }

  /** The live task, share-locked so a deletion or unpublish waits for the enrollment (and it for them). */
  private async lockTask(ctx: RequestContext, key: string): Promise<Task> {
    const where = isUuid(key) ? 't.uuid = :key AND t.deleted_at IS NULL' : 't.id = :key AND t.deleted_at IS NULL';
    const task = await this.tasks.query(ctx, 't').andWhere(where, { key: isUuid(key) ? key.toLowerCase() : Number(key) }).setLock('pessimistic_read').getOne();
    return task ?? Promise.reject(openItemNotFound('task', key));
  }

  /** A deleted program is 404 everywhere (docs/catalog.md "Programs"), as an unknown one. */
  private async findProgram(ctx: RequestContext, key: string): Promise<Program> {
    const program = await this.programs.findOne(ctx, { ...(isUuid(key) ? { uuid: key.toLowerCase() } : { id: Number(key) }), deletedAt: IsNull() });
    return program ?? Promise.reject(openItemNotFound('program', key));
  }
}
