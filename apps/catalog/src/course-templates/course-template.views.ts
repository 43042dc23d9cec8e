import type {
  CourseTemplateEventData,
  CourseTemplateSubAccountView,
  CourseTemplateView,
  CourseType,
  DirectorySubAccount,
  DirectorySubAccountsReply,
  OrderedSlideView,
  ScormSettingsView,
} from '@lms/contracts';
import type { EnrollmentFigures } from '../enrollments/enrollment-counts.js';
import type { CourseTemplate, PublishedTemplateFields } from './course-template.entity.js';

/** What a view may add beyond the base fields (the spec's conditional fields). */
export interface CourseTemplateViewOptions {
  counts?: boolean;
  expiration?: boolean;
  enrollmentProfiles?: boolean;
  programs?: boolean;
  /** Lists show deleted_at only when deleted records were asked for (convention 6); single records always. */
  deletedAt?: boolean;
  scorm?: boolean;
}

/** Figures read alongside the rows, per course id. */
export interface CourseTemplateExtras {
  subAccounts: DirectorySubAccountsReply;
  figures: Map<number, EnrollmentFigures>;
  slideTotals: Map<number, { estimatedTime: number; attachments: number; slides: number }>;
  programIds: Map<number, number[]>;
  /** The current SCORM packages of the SCORM courses, by package id (single records). */
  scormPackages?: Map<string, { version: string; launchSco: string; title: string; createdAt: Date }>;
  slides?: Map<number, OrderedSlideView[]>;
}

export const DEFAULT_SCORM_SETTINGS: ScormSettingsView = {
  registration_instancing_option: 'never',
  player_launch_type: 'frameset',
  sco_launch_type: 'frameset',
  score_rollup_mode: 'score_provided_by_course',
};

/** 'inapplicable' for native courses; external (SCORM, third-party) courses start 'pending'. */
export const externalStatusOf = (type: CourseType): string => (type === 'native' ? 'inapplicable' : 'pending');

export const authorPath = (userId: number) => `/api/admin/users/${userId}`;
/** The open enrollment path a learner POSTs to, as a program's `enroll_url` is (docs/learner.md). */
export const enrollUrl = (uuid: string) => `/api/learner/open_courses/${uuid}/enrollment`;

function subAccountView(course: CourseTemplate, directory: DirectorySubAccountsReply): CourseTemplateSubAccountView | null {
  const own = [...directory.sub_accounts, directory.root, directory.current].find((s): s is DirectorySubAccount => s !== null && s.id === course.subAccountId);
  if (!own) return null;
  return { id: String(own.id), name: own.name, is_root: own.is_root, not_current: own.id !== directory.current?.id, sub_accounts_exist: directory.sub_accounts_exist };
}

/** The course's own locks (when enabled) plus those of its sub-account and of the root sub-account. */
export function derivedLockedAttributes(course: CourseTemplate, directory: DirectorySubAccountsReply): string[] {
  const own = [...directory.sub_accounts, directory.root].find((s) => s !== null && s.id === course.subAccountId);
  const all = [...(course.lockedAttributesEnabled ? course.lockedAttributes : []), ...(own?.locked_attributes ?? []), ...(directory.root?.locked_attributes ?? [])];
  return [...new Set(all)].sort();
}

export function toCourseTemplateView(course: CourseTemplate, extras: CourseTemplateExtras, options: CourseTemplateViewOptions): CourseTemplateView {
  const figures = extras.figures.get(course.id);
  const totals = extras.slideTotals.get(course.id);
  const view: CourseTemplateView = {
    id: String(course.id),
    estimated_time: totals && totals.slides > 0 ? totals.estimatedTime : null,
    passing_threshold: course.passingThreshold,
    max_quiz_attempts: course.maxQuizAttempts,
    continuing_education_credits: course.continuingEducationCredits,
    title: course.title,
    description: course.description,
    is_published: course.isPublished,
    has_unpublished_changes: course.hasUnpublishedChanges,
    default_days_until_due: course.defaultDaysUntilDue,
    default_due_on_date: course.defaultDueOnDate,
    due_date_type: course.dueDateType,
    has_certificate: course.hasCertificate,
    external_status: course.externalStatus,
    external_status_message: course.externalStatusMessage,
    course_type: course.courseType,
    open_book: course.openBook,
    enrollments_count: figures?.counts.all ?? 0,
    attachments_count: totals?.attachments ?? 0,
    created_at: course.createdAt.toISOString(),
    updated_at: course.updatedAt.toISOString(),
    ...(options.deletedAt ? { deleted_at: course.deletedAt?.toISOString() ?? null } : {}),
    third_party_course_id: course.thirdPartyCourseId,
    external_course_id: course.externalCourseId,
    // The spec has no sections for authored courses: nothing is ever due by section.
    next_section_due: figures?.nextDue?.toISOString() ?? null,
    sub_account: subAccountView(course, extras.subAccounts),
    has_shared_enrollments: figures?.shared ?? false,
    tags: course.tags,
    matching_tags: course.matchingTags,
    retain: course.retain,
    retain_intervals: course.retainIntervals,
    show_correct_response: course.showCorrectResponse,
    maintain_branding_in_sub_account: course.maintainBrandingInSubAccount,
    links: { author: authorPath(course.authorId) },
    locked_attributes_enabled: course.lockedAttributesEnabled,
    locked_attributes: course.lockedAttributes,
    derived_locked_attributes: derivedLockedAttributes(course, extras.subAccounts),
  };
  if (options.counts && figures) view.enrollment_counts = figures.counts;
  if (options.expiration) {
    Object.assign(view, {
      expires: course.expires,
      default_days_until_expiration: course.defaultDaysUntilExpiration,
      auto_re_enroll: course.autoReEnroll,
      re_enrollment_period: course.reEnrollmentPeriod,
    });
  }
  if (options.enrollmentProfiles) Object.assign(view, { enroll_url: enrollUrl(course.uuid), open_enrollment: course.openEnrollment, uuid: course.uuid });
  if (options.programs) view.program_ids = (extras.programIds.get(course.id) ?? []).map(String);
  if (options.scorm && course.courseType === 'scorm') {
    const pkg = course.scormPackageId ? extras.scormPackages?.get(course.scormPackageId) : undefined;
    view.scorm = {
      ...(course.scorm ?? DEFAULT_SCORM_SETTINGS),
      scorm_version: pkg?.version ?? null,
      launch_sco: pkg?.launchSco ?? null,
      package_title: pkg?.title ?? null,
      package_uploaded_at: pkg?.createdAt.toISOString() ?? null,
    };
  }
  const slides = extras.slides?.get(course.id);
  if (slides) view.slides = slides;
  return view;
}

/** The template fields publishing copies to the learners' side. */
export function publishedFieldsOf(course: CourseTemplate): PublishedTemplateFields {
  return {
    title: course.title,
    description: course.description,
    default_days_until_due: course.defaultDaysUntilDue,
    default_due_on_date: course.defaultDueOnDate,
    due_date_type: course.dueDateType,
    course_type: course.courseType,
    external_course_id: course.externalCourseId,
    has_certificate: course.hasCertificate,
    passing_threshold: course.passingThreshold,
    max_quiz_attempts: course.maxQuizAttempts,
    show_correct_response: course.showCorrectResponse,
    continuing_education_credits: course.continuingEducationCredits,
    open_book: course.openBook,
    tags: course.tags,
    matching_tags: course.matchingTags,
    maintain_branding_in_sub_account: course.maintainBrandingInSubAccount,
    locked_attributes_enabled: course.lockedAttributesEnabled,
    locked_attributes: course.lockedAttributes,
    expires: course.expires,
    default_days_until_expiration: course.defaultDaysUntilExpiration,
    auto_re_enroll: course.autoReEnroll,
    re_enrollment_period: course.reEnrollmentPeriod,
    retain: course.retain,
    retain_intervals: course.retainIntervals,
  };
}

/**
 * Reads the course as last published: a field from the `published` snapshot, or from its column when the
 * snapshot is older than the field (a migration fills the keys in; docs/catalog.md "Drafts and published").
 */
export function lastPublished(course: CourseTemplate): <T>(key: string, column: T) => T {
  const snapshot = course.published ?? {};
  return <T>(key: string, column: T): T => (key in snapshot ? (snapshot[key] as T) : column);
}

/** `lastPublished` in SQL, on course templates aliased `alias`, for a field whose column is named as its key. */
export const lastPublishedSql = (alias: string, key: string, type: 'boolean' | 'integer' | 'text') =>
  `(CASE WHEN ${alias}.published ? '${key}' THEN (${alias}.published->>'${key}')::${type} ELSE ${alias}.${key} END)`;

/** The settings a course's enrollments follow: what learners get is what was published, never a draft. */
export type EnrollmentSettings = Pick<
  CourseTemplate,
  'dueDateType' | 'defaultDueOnDate' | 'defaultDaysUntilDue' | 'expires' | 'defaultDaysUntilExpiration' | 'autoReEnroll' | 'reEnrollmentPeriod' | 'retain' | 'retainIntervals'
>;

export function enrollmentSettings(course: CourseTemplate): EnrollmentSettings {
  const pick = lastPublished(course);
  return {
    dueDateType: pick('due_date_type', course.dueDateType),
    defaultDueOnDate: pick('default_due_on_date', course.defaultDueOnDate),
    defaultDaysUntilDue: pick('default_days_until_due', course.defaultDaysUntilDue),
    expires: pick('expires', course.expires),
    defaultDaysUntilExpiration: pick('default_days_until_expiration', course.defaultDaysUntilExpiration),
    autoReEnroll: pick('auto_re_enroll', course.autoReEnroll),
    reEnrollmentPeriod: pick('re_enrollment_period', course.reEnrollmentPeriod),
    retain: pick('retain', course.retain),
    retainIntervals: pick('retain_intervals', course.retainIntervals),
  };
}

export const courseTemplateEventData = (course: CourseTemplate): CourseTemplateEventData => ({
  id: course.id,
  title: course.title,
  course_type: course.courseType,
  is_published: course.isPublished,
  sub_account_id: course.subAccountId,
});
