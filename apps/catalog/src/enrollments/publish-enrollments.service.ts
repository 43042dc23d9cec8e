import { Injectable } from '@nestjs/common';
import {
  COURSE_TEMPLATE_PUBLISH_RECIPIENTS_EVENT,
  ENROLLMENT_CREATED_EVENT,
  type NotifyFilter,
  recipientBatches,
  type PublishRecipientsData,
} from '@lms/contracts';
import { DepartedUsers, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import type { CourseTemplate } from '../course-templates/course-template.entity.js';
import { enrollmentSettings } from '../course-templates/course-template.views.js';
import { EnrollmentLifecycle } from './enrollment-lifecycle.service.js';
import { Enrollment } from './enrollment.entity.js';
import { enrollmentEventData } from './enrollment.views.js';
import { defaultDueAt } from './enrollments.service.js';

/** Which live enrollments a notify_filter names: `in_progress` is every one not finished, so all = finished ∪ in_progress. */
const FILTER_SQL: Record<NotifyFilter, string> = {
  all: 'true',
  finished: "e.state = 'complete'",
  in_progress: "e.state <> 'complete'",
};

/** What publishing a course does to its enrollments: who is told, and new attempts for the completed ones. */
@Injectable()
export class PublishEnrollments {
  constructor(
    private readonly outbox: Outbox,
    private readonly lifecycle: EnrollmentLifecycle,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    private readonly departed: DepartedUsers,
  ) {}

  /** The learners the filter selects among the course's live enrollments, by user id. */
  async recipients(scope: TenantScope, courseId: number, filter: NotifyFilter | null): Promise<number[]> {
    if (filter === null) return [];
    const rows = await this.enrollments
      .query(scope, 'e')
      .select('e.user_id', 'user_id')
      .andWhere("e.enrollable_type = 'CourseTemplate' AND e.enrollable_id = :courseId AND e.deleted_at IS NULL", { courseId })
      .andWhere(FILTER_SQL[filter])
      .orderBy('e.user_id', 'ASC')
      .getRawMany<{ user_id: number }>();
    return rows.map((r) => Number(r.user_id));
  }

  /** Recipients past the first batch, in their own events (in the publish's transaction). */
  async announceRest(scope: TenantScope, courseId: number, recipients: number[], data: Omit<PublishRecipientsData, 'batch' | 'recipients' | 'course_template_id'>): Promise<void> {
    for (const { batch, recipients: some } of recipientBatches(recipients).rest) {
      const event: PublishRecipientsData = { course_template_id: courseId, ...data, batch, recipients: some };
      await this.outbox.add(scope, COURSE_TEMPLATE_PUBLISH_RECIPIENTS_EVENT, event, String(courseId));
    }
  }

  /**
   * `re_enroll=true`: every completed live enrollment of the course gets a new attempt. The completed one
   * is kept as history (`re_enrolled`) and the learner gets a fresh assigned enrollment with the same
   * settings and a due date from the course's defaults. Runs in the publish's transaction (the course row
   * is locked for update, so no enrollment of the course is being created meanwhile).
   */
  async reEnrollCompleted(scope: TenantScope, course: CourseTemplate, now = new Date()): Promise<Enrollment[]> {
    const completed = await this.enrollments
      .query(scope, 'e')
      .andWhere("e.enrollable_type = 'CourseTemplate' AND e.enrollable_id = :courseId AND e.deleted_at IS NULL AND e.state = 'complete'", { courseId: course.id })
      .orderBy('e.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
    return this.newAttempts(scope, course, completed, now);
  }

  /**
   * Retires each completed enrollment and gives its learner a new one (shared with the expiry sweep). A
   * deleted learner's completion stays as it is: history, with no new attempt to withdraw.
   */
  async newAttempts(scope: TenantScope, course: CourseTemplate, completed: Enrollment[], now = new Date()): Promise<Enrollment[]> {
    const due = defaultDueAt(enrollmentSettings(course), now);
    const fresh: Enrollment[] = [];
    const departed = await this.departed.among(scope, completed.map((e) => e.userId));
    for (const old of completed.filter((e) => !departed.has(e.userId))) {
      await this.lifecycle.retire(scope, old, 're_enrolled');
      const next = await this.enrollments.insert(scope, {
        enrollableType: 'CourseTemplate',
        enrollableId: course.id,
        userId: old.userId,
        subAccountId: old.subAccountId,
        required: old.required,
        state: 'assigned',
        dueAt: due,
        groupId: old.groupId,
        programId: old.programId,
      });
      await this.outbox.add(scope, ENROLLMENT_CREATED_EVENT, enrollmentEventData(next), String(next.id));
      fresh.push(next);
    }
    return fresh;
  }
}
