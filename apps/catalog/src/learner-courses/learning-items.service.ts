import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import type { LearningItemView, RequestContext } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { EnrollmentLifecycle } from '../enrollments/enrollment-lifecycle.service.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { Program } from '../programs/program.entity.js';
import { Task } from '../tasks/task.entity.js';
import { learnerCourseNotFound, liveTrainingNotLeavable, requiredCourse } from './learner-course.errors.js';
import { publishedFacts, stillTheirs } from './learner-course.views.js';
import { LearnerLiveEnrollment } from './learner-live-enrollment.entity.js';
import { SchedulingLiveCourses } from './scheduling-live-courses.js';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Learning items (deprecated; docs/learner.md): every live enrollment of the caller — courses, tasks and
 * live trainings — each naming the program that brought it. Ids are enrollment ids, the learner courses'.
 */
@Injectable()
export class LearningItemsService {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly scheduling: SchedulingLiveCourses,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(LearnerLiveEnrollment) private readonly liveRows: TenantRepository<LearnerLiveEnrollment>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
    @InjectTenantRepository(Program) private readonly programs: TenantRepository<Program>,
  ) {}

  async list(ctx: RequestContext): Promise<LearningItemView[]> {
    const [rows, live] = await Promise.all([
      this.enrollments.find(ctx, { where: { userId: ctx.userId, deletedAt: IsNull() }, order: { id: 'ASC' } }),
      this.liveRows.find(ctx, { where: { userId: ctx.userId, deletedAt: IsNull() }, order: { id: 'ASC' } }),
    ]);
    return (await this.present(ctx, rows, live)).sort((a, b) => a.id - b.id);
  }

  async show(ctx: RequestContext, id: number): Promise<LearningItemView> {
    const [row, live] = await Promise.all([
      this.enrollments.findOne(ctx, { id, userId: ctx.userId, deletedAt: IsNull() }),
      this.liveRows.findOne(ctx, { id, userId: ctx.userId, deletedAt: IsNull() }),
    ]);
    const [view] = await this.present(ctx, row ? [row] : [], live ? [live] : []);
    if (!view) throw learnerCourseNotFound(id);
    return view;
  }

  /** Leaves an optional course or task (the enrollment is removed, as history); required ones and live trainings are a 400. */
  async leave(ctx: RequestContext, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const e = await this.enrollments.findOne(ctx, { id, userId: ctx.userId, deletedAt: IsNull() }, { lock: 'update' });
      if (!e) {
        if (await this.liveRows.findOne(ctx, { id, userId: ctx.userId, deletedAt: IsNull() })) throw liveTrainingNotLeavable(id);
        throw learnerCourseNotFound(id);
      }
      if (e.enrollableType === 'CourseTemplate') {
        const course = await this.courses.findOne(ctx, { id: e.enrollableId });
        if (!course || !stillTheirs(course, e)) throw learnerCourseNotFound(id);
      }
      if (e.required) throw requiredCourse(id);
      await this.lifecycle.retire(ctx, e, 'removed');
    });
  }

  async present(ctx: RequestContext, rows: Enrollment[], live: LearnerLiveEnrollment[] = []): Promise<LearningItemView[]> {
    const ids = (type: string) => [...new Set(rows.filter((r) => r.enrollableType === type).map((r) => r.enrollableId))];
    const programIds = [...new Set(rows.flatMap((r) => (r.programId === null ? [] : [r.programId])))];
    const [courses, tasks, programs, summaries] = await Promise.all([
      ids('CourseTemplate').length ? this.courses.find(ctx, { where: { id: In(ids('CourseTemplate')) } }) : [],
      ids('Task').length ? this.tasks.find(ctx, { where: { id: In(ids('Task')) } }) : [],
      // A deleted program is 404 everywhere: its items no longer name it, as the learner courses do not.
      programIds.length ? this.programs.find(ctx, { where: { id: In(programIds), deletedAt: IsNull() } }) : [],
      this.scheduling.summaries(ctx, live.map((l) => l.liveCourseId)),
    ]);
    // A course's title as last published, as the learner courses show it: a draft is not the learners' yet.
    const titles = new Map<string, string>([...courses.map((c) => [`CourseTemplate:${c.id}`, publishedFacts(c).title] as const), ...tasks.map((t) => [`Task:${t.id}`, t.title] as const)]);
    const programTitles = new Map(programs.map((p) => [p.id, p.title]));
    // An unpublished course's open enrollments are taken away with it, as on the learner courses.
    const courseOf = new Map(courses.map((c) => [c.id, c]));
    const theirs = rows.filter((r) => {
      const course = r.enrollableType === 'CourseTemplate' ? courseOf.get(r.enrollableId) : undefined;
      return course === undefined || stillTheirs(course, r);
    });
    const items: LearningItemView[] = theirs.map((r) => ({
      id: r.id,
      type: r.enrollableType,
      item_id: r.enrollableId,
      title: titles.get(`${r.enrollableType}:${r.enrollableId}`) ?? '',
      state: r.state,
      required: r.required,
      end_at: iso(r.dueAt),
      completed_at: iso(r.completedAt),
      program_id: r.programId !== null && programTitles.has(r.programId) ? r.programId : null,
      program_title: r.programId === null ? null : (programTitles.get(r.programId) ?? null),
      created_at: r.createdAt.toISOString(),
    }));
    for (const l of live) {
      items.push({
        id: l.id,
        type: 'LiveCourse',
        item_id: l.liveCourseId,
        title: summaries.get(l.liveCourseId)?.title ?? `Live course ${l.liveCourseId}`,
        state: l.completedAt ? 'complete' : 'active',
        required: true,
        end_at: null,
        completed_at: iso(l.completedAt),
        program_id: null,
        program_title: null,
        created_at: l.createdAt.toISOString(),
      });
    }
    return items;
  }
}
