import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import { type ExternalInfoView, type LearnerCourseView, LIVE_TRAINING, type RequestContext } from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { courseTemplateArchived } from '../course-templates/course-template.errors.js';
import { DEFAULT_SCORM_SETTINGS, externalStatusOf, lastPublished } from '../course-templates/course-template.views.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { ProgramCourse } from '../programs/program-course.entity.js';
import { ProgramGate, toBlockedByView } from '../programs/program-gate.js';
import { Program } from '../programs/program.entity.js';
import { ScormPackage } from '../scorm/scorm-package.entity.js';
import { Slide } from '../slides/slide.entity.js';
import { CourseCompletion } from './course-completion.service.js';
import { learnerCourseNotFound, liveTrainingNotCompletable, liveTrainingNotLeavable, notExternal, previewNotFound } from './learner-course.errors.js';
import { learningStandardOf, type ProgramPlace, publishedFacts, type SlideTotals, stillTheirs, toLearnerCourseView, toLiveTrainingView, totalsOf } from './learner-course.views.js';
import { LearnerLiveEnrollment } from './learner-live-enrollment.entity.js';
import { LearningItemsService } from './learning-items.service.js';
import { SchedulingLiveCourses } from './scheduling-live-courses.js';

/** One of the caller's learner courses: a course enrollment or a live training. */
export type OwnCourse = { kind: 'course'; enrollment: Enrollment } | { kind: 'live'; live: LearnerLiveEnrollment };

/**
 * The caller's own courses (docs/learner.md): course enrollments and live trainings under one id space.
 * Every lookup is by the caller's user id, so another learner's id is the 404 an unknown one is.
 */
@Injectable()
export class LearnerCoursesService {
  constructor(
    private readonly completion: CourseCompletion,
    private readonly items: LearningItemsService,
    private readonly scheduling: SchedulingLiveCourses,
    private readonly gate: ProgramGate,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(LearnerLiveEnrollment) private readonly liveRows: TenantRepository<LearnerLiveEnrollment>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
    @InjectTenantRepository(Program) private readonly programs: TenantRepository<Program>,
    @InjectTenantRepository(ProgramCourse) private readonly programCourses: TenantRepository<ProgramCourse>,
    @InjectTenantRepository(ScormPackage) private readonly scormPackages: TenantRepository<ScormPackage>,
  ) {}

  /** The SCORM version of each course's current package, by course id (courses without one are left out). */
  async packageVersions(ctx: RequestContext, courses: CourseTemplate[]): Promise<Map<number, string>> {
    const ids = courses.flatMap((c) => (c.courseType === 'scorm' && c.scormPackageId ? [c.scormPackageId] : []));
    if (ids.length === 0) return new Map();
    const versions = new Map((await this.scormPackages.find(ctx, { where: { id: In(ids) } })).map((p) => [p.id, p.version as string]));
    return new Map(courses.flatMap((c) => (c.scormPackageId && versions.has(c.scormPackageId) ? [[c.id, versions.get(c.scormPackageId)!] as const] : [])));
  }

  /** Every live course enrollment and live training of the caller, oldest enrollment first. */
  async list(ctx: RequestContext): Promise<LearnerCourseView[]> {
    const [courseRows, liveRows] = await Promise.all([
      this.enrollments.find(ctx, { where: { userId: ctx.userId, enrollableType: 'CourseTemplate', deletedAt: IsNull() }, order: { id: 'ASC' } }),
      this.liveRows.find(ctx, { where: { userId: ctx.userId }, order: { id: 'ASC' } }),
    ]);
    const views = [...(await this.presentCourses(ctx, courseRows)), ...(await this.presentLive(ctx, liveRows.filter((r) => r.deletedAt === null)))];
    return views.sort((a, b) => a.id - b.id);
  }

  async show(ctx: RequestContext, id: number): Promise<LearnerCourseView> {
    const own = await this.own(ctx, id);
    if (own.kind === 'live') return (await this.presentLive(ctx, [own.live]))[0];
    // Unpublished since `own` looked: as gone as it will be on the next read.
    const [view] = await this.presentCourses(ctx, [own.enrollment]);
    return view ?? Promise.reject(learnerCourseNotFound(id));
  }

  /** A published course of the account, with the caller's enrollment in it when there is one (a completion, also unpublished). */
  async preview(ctx: RequestContext, courseTemplateId: number): Promise<LearnerCourseView> {
    const [enrollment, course] = await Promise.all([
      this.enrollments.findOne(ctx, { userId: ctx.userId, enrollableType: 'CourseTemplate', enrollableId: courseTemplateId, deletedAt: IsNull() }),
      this.courses.findOne(ctx, { id: courseTemplateId }),
    ]);
    if (enrollment && course && stillTheirs(course, enrollment)) {
      // Unpublished between the two reads, it is presented as no course: the 404 of one never published.
      const [view] = await this.presentCourses(ctx, [enrollment]);
      if (!view) throw previewNotFound(courseTemplateId);
      return view;
    }
    if (!course || course.deletedAt || !course.isPublished) throw previewNotFound(courseTemplateId);
    const totals = await this.slideTotals(ctx, [course.id]);
    return toLearnerCourseView(course, undefined, totals.get(course.id));
  }

  /** Completes the caller's course enrollment (once; again answers it as it is) through the one completion path. */
  async complete(ctx: RequestContext, id: number): Promise<{ view: LearnerCourseView; enrollment: Enrollment }> {
    const own = await this.own(ctx, id);
    if (own.kind === 'live') throw liveTrainingNotCompletable(id);
    // Unpublished since `own` looked: the 404 it answers now; archived (its enrollment stays listed): the 400 of an archived item.
    const enrollment = await this.completion.complete(ctx, own.enrollment, (course) => (course?.isPublished ? courseTemplateArchived(course.id) : learnerCourseNotFound(id)));
    return { view: (await this.presentCourses(ctx, [enrollment]))[0], enrollment };
  }

  /**
   * The caller leaves an optional course: the enrollment is removed (history, like an author's removal), as a
   * learning item is left: under the enrollment's row lock, so a course unpublished since `own` looked is its 404.
   */
  async leave(ctx: RequestContext, id: number): Promise<void> {
    const own = await this.own(ctx, id);
    if (own.kind === 'live') throw liveTrainingNotLeavable(id);
    await this.items.leave(ctx, id);
  }

  async externalInfo(ctx: RequestContext, id: number): Promise<ExternalInfoView> {
    const own = await this.own(ctx, id);
    if (own.kind === 'live') throw notExternal(id, LIVE_TRAINING);
    const course = await this.courses.findOne(ctx, { id: own.enrollment.enrollableId });
    if (!course) throw learnerCourseNotFound(id);
    const type = publishedFacts(course).courseType;
    if (type === 'native') throw notExternal(id, type);
    return {
      enrollment_id: id,
      course_template_id: course.id,
      course_type: type,
      // As last published, as the type (and the status it brings): an author's draft link is not the learners' yet.
      external_course_id: lastPublished(course)('external_course_id', course.externalCourseId),
      third_party_course_id: course.thirdPartyCourseId,
      external_status: externalStatusOf(type as CourseTemplate['courseType']),
      external_status_message: course.externalStatusMessage,
      available_offline: type === 'scorm',
      external_learning_standard: learningStandardOf(type, (await this.packageVersions(ctx, [course])).get(course.id)),
      // The spec gives no version counter: a published course is version 1, an unpublished one 0.
      external_version: course.publishedAt ? 1 : 0,
      scorm: type === 'scorm' ? { ...(course.scorm ?? DEFAULT_SCORM_SETTINGS) } : null,
    };
  }

  /** The caller's live learner course with this id, or 404 whoever else's it is (and while its course is taken away). */
  async own(ctx: RequestContext, id: number): Promise<OwnCourse> {
    const enrollment = await this.enrollments.findOne(ctx, { id, userId: ctx.userId, enrollableType: 'CourseTemplate' });
    if (enrollment && enrollment.deletedAt === null) {
      const course = await this.courses.findOne(ctx, { id: enrollment.enrollableId });
      if (course && stillTheirs(course, enrollment)) return { kind: 'course', enrollment };
      throw learnerCourseNotFound(id);
    }
    const live = await this.liveRows.findOne(ctx, { id, userId: ctx.userId });
    if (live && live.deletedAt === null) return { kind: 'live', live };
    throw learnerCourseNotFound(id);
  }

  /** The rows as learner courses, leaving out those whose course is taken away from the learner (`stillTheirs`). */
  async presentCourses(ctx: RequestContext, rows: Enrollment[]): Promise<LearnerCourseView[]> {
    if (rows.length === 0) return [];
    const courseIds = [...new Set(rows.map((e) => e.enrollableId))];
    const programIds = [...new Set(rows.flatMap((e) => (e.programId === null ? [] : [e.programId])))];
    const open = [...new Set(rows.filter((e) => e.state !== 'complete' && e.userId === ctx.userId).map((e) => e.enrollableId))];
    const [courses, totals, places, blockers] = await Promise.all([
      this.courses.find(ctx, { where: { id: In(courseIds) } }),
      this.slideTotals(ctx, courseIds),
      this.programPlaces(ctx, programIds),
      this.gate.blockers(ctx, ctx.userId, open.map((id) => ({ type: 'CourseTemplate' as const, id }))),
    ]);
    const byId = new Map(courses.map((c) => [c.id, c]));
    return rows.flatMap((e) => {
      const course = byId.get(e.enrollableId);
      if (!course || !stillTheirs(course, e)) return [];
      const place = e.programId === null ? undefined : places.get(`${e.programId}:${course.id}`);
      return [toLearnerCourseView(course, e, totals.get(course.id), place, toBlockedByView(blockers.get(`CourseTemplate:${course.id}`)))];
    });
  }

  async presentLive(ctx: RequestContext, rows: LearnerLiveEnrollment[]): Promise<LearnerCourseView[]> {
    if (rows.length === 0) return [];
    const live = await this.scheduling.summaries(ctx, rows.map((r) => r.liveCourseId));
    return rows.map((r) => toLiveTrainingView(r, live.get(r.liveCourseId)));
  }

  /** Published slides only (a slide gets its `position` when its course is published), with their published minutes and attachments. */
  async slideTotals(ctx: RequestContext, ids: number[]): Promise<Map<number, SlideTotals>> {
    const rows = await this.slides
      .query(ctx, 's')
      .select('s.course_template_id', 'course_template_id')
      .addSelect('coalesce(sum(jsonb_array_length(s.published_attachments)), 0)', 'attachments')
      .addSelect('array_agg(s.published_estimated_time ORDER BY s.position, s.id)', 'each')
      .andWhere('s.course_template_id = ANY(:ids)', { ids })
      .andWhere('s.position IS NOT NULL')
      .groupBy('s.course_template_id')
      .getRawMany<{ course_template_id: number; attachments: string; each: number[] }>();
    return new Map(rows.map((r) => [Number(r.course_template_id), totalsOf(r.each.map(Number), Number(r.attachments))]));
  }

  /** `programId:courseId` -> the program's title, the course's place in it and its course count. */
  private async programPlaces(ctx: RequestContext, programIds: number[]): Promise<Map<string, ProgramPlace>> {
    if (programIds.length === 0) return new Map();
    const [programs, members] = await Promise.all([
      this.programs.find(ctx, { where: { id: In(programIds) } }),
      // Positions run over a program's courses and checkpoints together: a course's place among courses is its rank.
      this.programCourses.find(ctx, { where: { programId: In(programIds) }, order: { programId: 'ASC', position: 'ASC' } }),
    ]);
    const counts = new Map<number, number>();
    const ranks = members.map((m) => {
      counts.set(m.programId, (counts.get(m.programId) ?? 0) + 1);
      return counts.get(m.programId) ?? 0;
    });
    const titles = new Map(programs.map((p) => [p.id, p.title]));
    return new Map(
      members.flatMap((m, i) => {
        const title = titles.get(m.programId);
        return title === undefined ? [] : [[`${m.programId}:${m.courseTemplateId}`, { title, index: ranks[i], count: counts.get(m.programId) ?? 0 }] as const];
      }),
    );
  }
}
