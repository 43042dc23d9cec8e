import { Injectable } from '@nestjs/common';
import { Any } from 'typeorm';
import {
  COURSE_TEMPLATE_PUBLISH_RECIPIENTS_EVENT,
  ENROLLMENT_CREATED_EVENT,
  ENROLLMENT_REMOVED_EVENT,
  type NotifyFilter,
  recipientBatches,
  type PublishRecipientsData,
} from '@lms/contracts';
import { DepartedUsers, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import type { CourseTemplate } from '../course-templates/course-template.entity.js';
import { enrollmentSettings } from '../course-templates/course-template.views.js';
import { Enrollment } from './enrollment.entity.js';
import { enrollmentEventData } from './enrollment.views.js';
import { defaultDueAt } from './enrollments.service.js';

/** Which live enrollments a notify_filter names: `in_progress` is every one not finished, so all = finished ∪ in_progress. */
const FILTER_SQL: Record<NotifyFilter, string> = {
  all: 'true',
  finished: "e.state = 'complete'",
  in_progress: "e.state <> 'complete'",
};

/** What a new attempt copies of a completed enrollment, and what the completion's removal event tells. */
const ATTEMPT_COLUMNS = ['id', 'enrollableId', 'userId', 'subAccountId', 'required', 'state', 'dueAt', 'groupId', 'programId'] as const;
type CompletedEnrollment = Pick<Enrollment, (typeof ATTEMPT_COLUMNS)[number]>;

/** What publishing a course does to its enrollments: who is told, and new attempts for the completed ones. */
@Injectable()
export class PublishEnrollments {
  constructor(
    private readonly outbox: Outbox,
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
  async reEnrollCompleted(scope: TenantScope, course: CourseTemplate, now = new Date()): Promise<number> {
    const completed = await this.enrollments
      .query(scope, 'e')
      .select(ATTEMPT_COLUMNS.map((column) => `e.${column}`))
      .andWhere("e.enrollable_type = 'CourseTemplate' AND e.enrollable_id = :courseId AND e.deleted_at IS NULL AND e.state = 'complete'", { courseId: course.id })
      .orderBy('e.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
    return this.newAttempts(scope, course, completed, now);
  }

  /**
   * Retires each completed enrollment and gives its learner a new one (shared with the expiry sweep), as
   * `retire` and an insert would one by one, in one update, one insert and their events by one insert per
   * batch: 20,000 completions are re-enrolled within the publish's request. A deleted learner's completion
   * stays as it is: history, with no new attempt to withdraw.
   */
  async newAttempts(scope: TenantScope, course: CourseTemplate, completed: CompletedEnrollment[], now = new Date()): Promise<number> {
    const departed = await this.departed.among(scope, completed.map((e) => e.userId));
    const retiring = completed.filter((e) => !departed.has(e.userId));
    if (retiring.length === 0) return 0;
    await this.enrollments.update(scope, { id: Any(retiring.map((e) => e.id)) }, { deletedAt: new Date(), removalReason: 're_enrolled' });
    await this.outbox.addAll(scope, ENROLLMENT_REMOVED_EVENT, retiring.map((e) => ({ data: enrollmentEventData({ ...e, removalReason: 're_enrolled' }), subject: String(e.id) })));
    const due = defaultDueAt(enrollmentSettings(course), now);
    const attempts = retiring.map((old) => ({
      enrollableType: 'CourseTemplate' as const,
      enrollableId: course.id,
      userId: old.userId,
      subAccountId: old.subAccountId,
      required: old.required,
      state: 'assigned' as const,
      dueAt: due,
      groupId: old.groupId,
      programId: old.programId,
    }));
    // One per learner (the old ones are retired, the course row is locked): their ids come back by learner.
    const ids = new Map((await this.enrollments.insertNew(scope, attempts, ['id', 'user_id'])).map((row) => [Number(row.user_id), Number(row.id)]));
    // The course row is held and the completions retired: nobody else can have enrolled them meanwhile.
    if (ids.size !== attempts.length) throw new Error(`re-enrollment of course ${course.id}: ${attempts.length - ids.size} learners already had a live enrollment`);
    await this.outbox.addAll(scope, ENROLLMENT_CREATED_EVENT, attempts.map((a) => ({ data: enrollmentEventData({ ...a, id: ids.get(a.userId)! }), subject: String(ids.get(a.userId)) })));
    return ids.size;
  }
}
