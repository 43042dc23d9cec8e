import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  COURSE_TEMPLATE_CREATED_EVENT,
  COURSE_TEMPLATE_PUBLISHED_EVENT,
  COURSE_TEMPLATE_UPDATED_EVENT,
  type CourseTemplateChanges,
  type CourseTemplatePublishedData,
  type CourseTemplateRequest,
  recipientBatches,
  type RequestContext,
  type ScormSettingsRequest,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { AuthoringGuard } from '../authoring/authoring-guard.js';
import { CourseAuthor } from '../course-authors/course-author.entity.js';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { CourseTemplate } from './course-template.entity.js';
import { courseTemplateArchived, courseTemplateNeverPublished, courseTemplateNotFound, courseTemplateNotScorm, scormSettingsOfOtherType } from './course-template.errors.js';
import { courseTemplateEventData, DEFAULT_SCORM_SETTINGS, externalStatusOf, publishedFieldsOf } from './course-template.views.js';

/** Request fields and the entity properties they set (the rest of a request is state, handled apart). */
const FIELD_MAP = {
  title: 'title',
  description: 'description',
  default_days_until_due: 'defaultDaysUntilDue',
  default_due_on_date: 'defaultDueOnDate',
  due_date_type: 'dueDateType',
  course_type: 'courseType',
  external_course_id: 'externalCourseId',
  has_certificate: 'hasCertificate',
  passing_threshold: 'passingThreshold',
  max_quiz_attempts: 'maxQuizAttempts',
  continuing_education_credits: 'continuingEducationCredits',
  open_book: 'openBook',
  tags: 'tags',
  matching_tags: 'matchingTags',
  maintain_branding_in_sub_account: 'maintainBrandingInSubAccount',
  locked_attributes_enabled: 'lockedAttributesEnabled',
  locked_attributes: 'lockedAttributes',
  expires: 'expires',
  default_days_until_expiration: 'defaultDaysUntilExpiration',
  auto_re_enroll: 'autoReEnroll',
  re_enrollment_period: 'reEnrollmentPeriod',
  retain: 'retain',
  retain_intervals: 'retainIntervals',
  show_correct_response: 'showCorrectResponse',
} as const satisfies Partial<Record<keyof CourseTemplateRequest, keyof CourseTemplate>>;

type FieldValues = Partial<Pick<CourseTemplate, (typeof FIELD_MAP)[keyof typeof FIELD_MAP]>>;

function fieldsOf(input: CourseTemplateChanges): FieldValues {
  const values: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(FIELD_MAP)) {
    const value = input[key as keyof CourseTemplateChanges];
    if (value === undefined) continue;
    values[property] = key === 'title' && typeof value === 'string' ? value.trim() : value;
  }
  return values as FieldValues;
}

/** A course type brings its external status and, for SCORM, its launch settings. */
const typeState = (course: Pick<CourseTemplate, 'courseType' | 'scorm'>) => ({
  externalStatus: externalStatusOf(course.courseType),
  scorm: course.courseType === 'scorm' ? (course.scorm ?? DEFAULT_SCORM_SETTINGS) : null,
});

/** The SCORM settings a request sent, over those the course had (or the defaults). */
const withScormSettings = (current: CourseTemplate['scorm'], requested: ScormSettingsRequest) => ({
  ...(current ?? DEFAULT_SCORM_SETTINGS),
  ...Object.fromEntries(Object.entries(requested).filter(([, value]) => value !== undefined)),
});

@Injectable()
export class CourseTemplatesService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly guard: AuthoringGuard,
    private readonly directory: IdentityDirectory,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(CourseAuthor) private readonly authors: TenantRepository<CourseAuthor>,
  ) {}

  /** A course of the account, archived ones included; another account's is as unknown as a missing one. */
  async find(scope: TenantScope, id: number): Promise<CourseTemplate> {
    return (await this.courses.findOne(scope, { id })) ?? Promise.reject(courseTemplateNotFound(id));
  }

  /**
   * The course locked for this transaction (FOR NO KEY UPDATE, what its own UPDATE takes): writes to one
   * course, its slides and its authors queue behind each other, so checks and shifts see what the previous
   * write left, while rows that merely point at the course (a program's order written again) do not wait.
   */
  async lock(scope: TenantScope, id: number): Promise<CourseTemplate> {
    const course = await this.courses.findOne(scope, { id }, { lock: 'no key update' });
    return course ?? Promise.reject(courseTemplateNotFound(id));
  }

  /** Locks a course for an authoring write: it must exist, not be archived, and the caller must be allowed. */
  async lockForWrite(ctx: RequestContext, id: number): Promise<CourseTemplate> {
    const course = await this.lock(ctx, id);
    if (course.deletedAt) throw courseTemplateArchived(id);
    await this.guard.assertCanWrite(ctx, { type: 'CourseTemplate', id });
    return course;
  }

  /**
   * All or nothing. Each course belongs to the caller's sub-account; the caller becomes its first author.
   * `preset` sets what no request may (a market item's `third_party_course_id`).
   */
  async create(ctx: RequestContext, inputs: CourseTemplateRequest[], preset: Partial<Pick<CourseTemplate, 'thirdPartyCourseId'>> = {}): Promise<CourseTemplate[]> {
    const { current } = await this.directory.subAccounts(ctx);
    return this.db.transaction(async () => {
      const created: CourseTemplate[] = [];
      for (const [index, input] of inputs.entries()) {
        const fields = fieldsOf(input);
        const courseType = input.course_type as CourseTemplate['courseType'];
        if (input.scorm !== undefined && courseType !== 'scorm') throw scormSettingsOfOtherType(courseType, `course_templates[${index}].scorm`);
        const course = await this.courses.insert(ctx, {
          ...fields,
          ...typeState({ courseType, scorm: input.scorm === undefined ? null : withScormSettings(null, input.scorm) }),
          ...preset,
          openEnrollment: input.open_enrollment ?? false,
          subAccountId: current?.id ?? null,
          authorId: ctx.userId,
          uuid: randomUUID(),
          isPublished: false,
          hasUnpublishedChanges: true,
        });
        await this.authors.insert(ctx, { courseTemplateId: course.id, userId: ctx.userId });
        await this.outbox.add(ctx, COURSE_TEMPLATE_CREATED_EVENT, courseTemplateEventData(course), String(course.id));
        // Reloaded, so columns the insert left to their defaults (nulls included) are in the answer.
        const row = await this.find(ctx, course.id);
        created.push(input.is_published ? await this.publishFields(ctx, row, { notify_filter: null, notify_message: null, re_enroll: false }) : row);
      }
      return created;
    });
  }

  /**
   * Changes draft fields: any change leaves unpublished changes behind. `is_published: false` takes the
   * course away from learners; `true` shows the last published version again (a course never published
   * must go through publish). `has_unpublished_changes` is the service's to keep, never taken from input.
   */
  async update(ctx: RequestContext, id: number, changes: CourseTemplateChanges): Promise<CourseTemplate> {
    return this.db.transaction(async () => {
      const course = await this.lockForWrite(ctx, id);
      const fields = fieldsOf(changes);
      const changed = Object.entries(fields).some(([key, value]) => JSON.stringify(course[key as keyof CourseTemplate]) !== JSON.stringify(value));
      Object.assign(course, fields);
      if (fields.courseType !== undefined) Object.assign(course, typeState(course));
      if (changes.scorm !== undefined) {
        if (course.courseType !== 'scorm') throw courseTemplateNotScorm(id);
        course.scorm = withScormSettings(course.scorm, changes.scorm);
      }
      if (changed) course.hasUnpublishedChanges = true;
      // The enrollment profile is not course content: it applies at once, with nothing left to publish.
      if (changes.open_enrollment !== undefined) course.openEnrollment = changes.open_enrollment;
      if (changes.is_published === false) course.isPublished = false;
      if (changes.is_published === true && !course.isPublished) {
        if (!course.published) throw courseTemplateNeverPublished(id);
        course.isPublished = true;
      }
      const saved = await this.courses.save(ctx, course);
      await this.outbox.add(ctx, COURSE_TEMPLATE_UPDATED_EVENT, courseTemplateEventData(saved), String(saved.id));
      return saved;
    });
  }

  /** A change to the course's content (its slides) is an unpublished change of the course. */
  async markChanged(scope: TenantScope, id: number): Promise<void> {
    await this.courses.update(scope, { id }, { hasUnpublishedChanges: true, updatedAt: () => 'now()' });
  }

  /** Copies the template fields to the published side and records the published event (in the caller's transaction). */
  async publishFields(
    ctx: RequestContext,
    course: CourseTemplate,
    notify: Pick<CourseTemplatePublishedData, 'notify_filter' | 'notify_message' | 're_enroll'>,
    publishedAt = new Date(),
    recipients: number[] = [],
  ): Promise<CourseTemplate> {
    Object.assign(course, { published: publishedFieldsOf(course), publishedAt, isPublished: true, hasUnpublishedChanges: false });
    const saved = await this.courses.save(ctx, course);
    const data: CourseTemplatePublishedData = {
      ...courseTemplateEventData(saved),
      published_at: publishedAt.toISOString(),
      ...notify,
      published_by: ctx.userId,
      recipients: recipientBatches(recipients).first,
      recipients_count: recipients.length,
    };
    await this.outbox.add(ctx, COURSE_TEMPLATE_PUBLISHED_EVENT, data, String(saved.id));
    return saved;
  }
}
