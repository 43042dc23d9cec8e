import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import { type BlockedByView, type MobileCourseItem, type MobileTaskItem, QUIZ_SLIDE_TYPES, type RequestContext, shownApprovalState, type SlideAttributesView } from '@lms/contracts';
import { notFound, InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { enrollUrl, lastPublished } from '../course-templates/course-template.views.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { learningStandardOf, publishedFacts, toLearnerCourseView } from '../learner-courses/learner-course.views.js';
import { LearnerCoursesService } from '../learner-courses/learner-courses.service.js';
import { ProgramGate, toBlockedByView } from '../programs/program-gate.js';
import { Slide } from '../slides/slide.entity.js';
import { Task } from '../tasks/task.entity.js';
import { CheckpointApproval } from '../checkpoints/checkpoint.entities.js';

/** What a course's published slides tell the mobile item: quizzes, and the cover image. */
interface SlideFacts {
  hasQuizzes: boolean;
  backgroundImageUrl: string | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;
const unique = (ids: number[]) => [...new Set(ids)];

/**
 * Mobile learner items (docs/learner.md): published courses and tasks of the account by id, each with the
 * caller's own live enrollment or null. Lists keep the order asked and leave out ids that name nothing a
 * learner may see; a single item of that kind is a 404.
 */
@Injectable()
export class MobileService {
  constructor(
    private readonly learnerCourses: LearnerCoursesService,
    private readonly gate: ProgramGate,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
    @InjectTenantRepository(CheckpointApproval) private readonly approvals: TenantRepository<CheckpointApproval>,
  ) {}

  async courseItems(ctx: RequestContext, ids: number[]): Promise<MobileCourseItem[]> {
    const wanted = unique(ids);
    const rows = await this.courses.find(ctx, { where: { id: In(wanted), isPublished: true, deletedAt: IsNull() } });
    if (rows.length === 0) return [];
    const found = rows.map((c) => c.id);
    const [enrollments, totals, facts, blockers, versions] = await Promise.all([
      this.enrollments.find(ctx, { where: { userId: ctx.userId, enrollableType: 'CourseTemplate', enrollableId: In(found), deletedAt: IsNull() } }),
      this.learnerCourses.slideTotals(ctx, found),
      this.slideFacts(ctx, found),
      this.gate.blockers(ctx, ctx.userId, found.map((id) => ({ type: 'CourseTemplate' as const, id }))),
      this.learnerCourses.packageVersions(ctx, rows),
    ]);
    const byCourse = new Map(rows.map((c) => [c.id, c]));
    const mine = new Map(enrollments.map((e) => [e.enrollableId, e]));
    return wanted.flatMap((id) => {
      const course = byCourse.get(id);
      return course ? [this.courseItem(course, mine.get(id), totals.get(id), facts.get(id), toBlockedByView(blockers.get(`CourseTemplate:${id}`)), versions.get(id))] : [];
    });
  }

  async course(ctx: RequestContext, id: number): Promise<MobileCourseItem & { type: 'CourseTemplate' }> {
    const [item] = await this.courseItems(ctx, [id]);
    if (!item) throw notFound('COURSE_TEMPLATE_NOT_FOUND', `Course template ${id} does not exist or is not published.`);
    return { ...item, type: 'CourseTemplate' };
  }

  async taskItems(ctx: RequestContext, ids: number[]): Promise<MobileTaskItem[]> {
    const wanted = unique(ids);
    const rows = await this.tasks.find(ctx, { where: { id: In(wanted), isPublished: true, deletedAt: IsNull() } });
    if (rows.length === 0) return [];
    const [enrollments, blockers] = await Promise.all([
      this.enrollments.find(ctx, { where: { userId: ctx.userId, enrollableType: 'Task', enrollableId: In(rows.map((t) => t.id)), deletedAt: IsNull() } }),
      this.gate.blockers(ctx, ctx.userId, rows.map((t) => ({ type: 'Task' as const, id: t.id }))),
    ]);
    const byTask = new Map(rows.map((t) => [t.id, t]));
    const mine = new Map(enrollments.map((e) => [e.enrollableId, e]));
    // The latest submission of each enrollment (ascending ids: the last one wins).
    const approvals = enrollments.length === 0 ? [] : await this.approvals.find(ctx, { where: { enrollmentId: In(enrollments.map((e) => e.id)) }, order: { id: 'ASC' } });
    const latest = new Map(approvals.map((a) => [a.enrollmentId, { id: a.id, state: shownApprovalState(a.state) }]));
    return wanted.flatMap((id) => {
      const task = byTask.get(id);
      const e = mine.get(id);
      return task ? [this.taskItem(task, e, e ? latest.get(e.id) : undefined, toBlockedByView(blockers.get(`Task:${id}`)))] : [];
    });
  }

  async task(ctx: RequestContext, id: number): Promise<MobileTaskItem & { type: 'Task' }> {
    const [item] = await this.taskItems(ctx, [id]);
    if (!item) throw notFound('TASK_NOT_FOUND', `Task ${id} does not exist or is not published.`);
    return { ...item, type: 'Task' };
  }

  private courseItem(course: CourseTemplate, e: Enrollment | undefined, totals: Parameters<typeof toLearnerCourseView>[2], facts: SlideFacts | undefined, blockedBy: BlockedByView | null, packageVersion: string | undefined): MobileCourseItem {
    const published = publishedFacts(course);
    const learner = toLearnerCourseView(course, e, totals);
    // As last published, null included: a course published without a description shows none, not the authors' draft.
    const description = lastPublished(course)('description', course.description);
    const external = published.courseType !== 'native';
    const launchUrl = e ? (external ? `/api/learner/courses/${e.id}/launch_url` : `/api/learner/courses/${e.id}`) : `/api/learner/courses/${course.id}/preview`;
    return {
      enrollment: e
        ? {
            id: e.id,
            completed_at: iso(e.completedAt),
            end_at: iso(e.dueAt),
            learning_item_id: e.id,
            required: e.required,
            score: e.score,
            state: e.state,
            time_remaining: learner.time_remaining,
            blocked_by: e.state === 'complete' ? null : blockedBy,
          }
        : null,
      enrollment_profile: { enroll_url: enrollUrl(course.uuid), has_certificate: published.hasCertificate, open_enrollment: course.openEnrollment, uuid: course.uuid },
      template: {
        id: course.id,
        course_type: published.courseType,
        description,
        estimated_time: learner.estimated_time,
        has_quizzes: facts?.hasQuizzes ?? false,
        external_info: external
          ? { available_offline: published.courseType === 'scorm', external_learning_standard: learningStandardOf(published.courseType, packageVersion), external_version: course.publishedAt ? 1 : 0 }
          : null,
        title: published.title,
        ...(facts?.backgroundImageUrl ? { cover_slide_data: { background_image_url: facts.backgroundImageUrl } } : {}),
        launch_url: launchUrl,
      },
    };
  }

  private taskItem(task: Task, e: Enrollment | undefined, approval: { id: number; state: string } | undefined, blockedBy: BlockedByView | null): MobileTaskItem {
    const launchUrl = e ? `/api/learner/learning_items/${e.id}` : `/api/learner/open_tasks/${task.uuid}/enrollment`;
    return {
      enrollment: e ? { id: e.id, end_at: iso(e.dueAt), required: e.required, state: e.state, approval: approval ?? null, blocked_by: e.state === 'complete' ? null : blockedBy } : null,
      enrollment_profile: { has_certificate: task.hasCertificate, open_enrollment: task.openEnrollment, uuid: task.uuid },
      template: {
        id: task.id,
        attachments_count: task.attachments.length,
        description: task.description,
        title: task.title,
        cover_slide_data: { background_image_url: null },
        launch_url: launchUrl,
        requires_approval: task.requiresApproval,
        requires_evidence: task.requiresEvidence,
      },
    };
  }

  /** Published slides in order: any quiz among them, and the first cover slide's background image. */
  private async slideFacts(ctx: RequestContext, courseIds: number[]): Promise<Map<number, SlideFacts>> {
    const rows = await this.slides
      .query(ctx, 's')
      .andWhere('s.course_template_id = ANY(:ids) AND s.position IS NOT NULL', { ids: courseIds })
      .orderBy('s.course_template_id', 'ASC')
      .addOrderBy('s.position', 'ASC')
      .getMany();
    const map = new Map<number, SlideFacts>();
    for (const slide of rows) {
      const facts = map.get(slide.courseTemplateId) ?? { hasQuizzes: false, backgroundImageUrl: null };
      const attrs = slide.publishedAttributes as SlideAttributesView | null;
      if (attrs?.type && QUIZ_SLIDE_TYPES.includes(attrs.type)) facts.hasQuizzes = true;
      if (facts.backgroundImageUrl === null && attrs?.type === 'cover' && attrs.cover_slide_data?.backgroundImageUrl) facts.backgroundImageUrl = attrs.cover_slide_data.backgroundImageUrl;
      map.set(slide.courseTemplateId, facts);
    }
    return map;
  }
}
