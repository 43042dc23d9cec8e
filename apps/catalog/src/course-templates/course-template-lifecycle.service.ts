import { Injectable } from '@nestjs/common';
import {
  COURSE_TEMPLATE_DELETED_EVENT,
  COURSE_TEMPLATE_RESTORED_EVENT,
  COURSE_TEMPLATE_SYNC_REQUESTED_EVENT,
  type PublishCourseTemplateBody,
  type RequestContext,
} from '@lms/contracts';
import { Database, forbidden, InjectTenantRepository, Outbox, type TenantRepository } from '@lms/platform';
import { AuthoringGuard } from '../authoring/authoring-guard.js';
import { ProgramsService } from '../programs/programs.service.js';
import { PublishEnrollments } from '../enrollments/publish-enrollments.service.js';
import { SlidePublisher } from '../slides/slide-publisher.js';
import { SlideResponsesService } from '../slide-responses/slide-responses.service.js';
import { CourseTemplate } from './course-template.entity.js';
import { courseTemplateArchived, courseTemplateNotScorm } from './course-template.errors.js';
import { courseTemplateEventData } from './course-template.views.js';
import { CourseTemplatesService } from './course-templates.service.js';

/** The course's moves between states: archive (soft delete), restore, publish, and SCORM sync. */
@Injectable()
export class CourseTemplateLifecycle {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly guard: AuthoringGuard,
    private readonly templates: CourseTemplatesService,
    private readonly slides: SlidePublisher,
    private readonly enrollments: PublishEnrollments,
    private readonly programs: ProgramsService,
    private readonly responses: SlideResponsesService,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
  ) {}

  /** Soft delete, which also takes the course out of its programs. Archiving an archived course changes nothing and is still a success. */
  async archive(ctx: RequestContext, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const course = await this.templates.lock(ctx, id);
      if (course.deletedAt) return;
      await this.guard.assertCanWrite(ctx, { type: 'CourseTemplate', id });
      course.deletedAt = new Date();
      const saved = await this.courses.save(ctx, course);
      await this.programs.removeCourse(ctx, id);
      await this.outbox.add(ctx, COURSE_TEMPLATE_DELETED_EVENT, courseTemplateEventData(saved), String(id));
    });
  }

  /** The restored course, or null when it was not archived (the spec's 204 "unsuccessful"). */
  async restore(ctx: RequestContext, id: number): Promise<CourseTemplate | null> {
    return this.db.transaction(async () => {
      const course = await this.templates.lock(ctx, id);
      if (!course.deletedAt) return null;
      await this.guard.assertCanWrite(ctx, { type: 'CourseTemplate', id });
      course.deletedAt = null;
      const saved = await this.courses.save(ctx, course);
      await this.outbox.add(ctx, COURSE_TEMPLATE_RESTORED_EVENT, courseTemplateEventData(saved), String(id));
      return saved;
    });
  }

  /** Drafts become what learners see: template fields and slides (deleted drafts go), in one transaction. */
  async publish(ctx: RequestContext, id: number, body: PublishCourseTemplateBody): Promise<CourseTemplate> {
    return this.db.transaction(async () => {
      const course = await this.templates.lockForWrite(ctx, id);
      // Questions added or dropped: open enrollments' scores are what their answers will be worth (before the slides).
      await this.responses.recountOpenScores(ctx, course);
      const publishedAt = await this.slides.publish(ctx, course.id);
      const notify = { notify_filter: body.notify_filter ?? null, notify_message: body.notify_message ?? null, re_enroll: body.re_enroll ?? false };
      // Recipients are chosen before re-enrollment: `finished` names those who had finished.
      const recipients = await this.enrollments.recipients(ctx, course.id, notify.notify_filter);
      const published = await this.templates.publishFields(ctx, course, notify, publishedAt, recipients);
      // After the fields: the new attempts take the due dates just published.
      if (notify.re_enroll) await this.enrollments.reEnrollCompleted(ctx, published, publishedAt);
      if (notify.notify_filter) {
        await this.enrollments.announceRest(ctx, course.id, recipients, { title: course.title, published_at: publishedAt.toISOString(), notify_filter: notify.notify_filter, notify_message: notify.notify_message });
      }
      return published;
    });
  }

  /**
   * Support users ask a SCORM course to re-read its enrollments from the SCORM upstream: recorded, and
   * announced to whoever talks to that upstream (`catalog.course_template.sync_requested`).
   */
  async sync(ctx: RequestContext, id: number): Promise<void> {
    // The gateway checks the route's role too; a service never trusts that it was asked through it.
    if (!ctx.roles.includes('support')) throw forbidden('SUPPORT_ROLE_REQUIRED', 'Syncing a SCORM course needs the support role.');
    await this.db.transaction(async () => {
      const course = await this.templates.lock(ctx, id);
      if (course.deletedAt) throw courseTemplateArchived(id);
      if (course.courseType !== 'scorm') throw courseTemplateNotScorm(id);
      const requestedAt = new Date().toISOString();
      course.externalStatusMessage = `Sync with the SCORM upstream requested at ${requestedAt}`;
      await this.courses.save(ctx, course);
      await this.outbox.add(ctx, COURSE_TEMPLATE_SYNC_REQUESTED_EVENT, { ...courseTemplateEventData(course), requested_at: requestedAt, requested_by: ctx.userId }, String(id));
    });
  }
}
