import type { DirectoryUser, LiveCourseEnrollmentView, LiveCourseEventData, LiveCourseView } from '@lms/contracts';
import type { LiveCourseEnrollment } from '../learners/live-course-enrollment.entity.js';
import type { LiveCourse } from './live-course.entity.js';

export interface LiveCourseViewOptions {
  expiration: boolean;
  enrollmentProfiles: boolean;
  enrollments: boolean;
  /** Lists show deleted_at only when deleted records were asked for. */
  deletedAt: boolean;
}

/** Show and update answer every conditional field except the enrollments. */
export const SINGLE_RECORD: LiveCourseViewOptions = { expiration: true, enrollmentProfiles: true, enrollments: false, deletedAt: false };

export interface LiveCourseFigures {
  sessions: number;
  enrollments: number;
  published: boolean;
}

export const enrollUrl = (uuid: string) => `/enroll/live_courses/${uuid}`;

export function toEnrollmentView(row: LiveCourseEnrollment, user: DirectoryUser | undefined): LiveCourseEnrollmentView {
  return {
    id: String(row.id),
    live_course_id: String(row.liveCourseId),
    user_id: String(row.userId),
    name: user?.name ?? `User ${row.userId}`,
    email: user?.email ?? null,
    avatar_url: user?.avatar_url ?? null,
    state: row.completedAt ? 'completed' : 'active',
    completed_at: row.completedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toLiveCourseView(course: LiveCourse, figures: LiveCourseFigures, options: LiveCourseViewOptions, enrollments?: LiveCourseEnrollmentView[]): LiveCourseView {
  const view: LiveCourseView = {
    id: String(course.id),
    title: course.title,
    author_id: String(course.authorId),
    created_at: course.createdAt.toISOString(),
    updated_at: course.updatedAt.toISOString(),
    description: course.description,
    sessions_count: figures.sessions,
    enrollments_count: figures.enrollments,
    is_published: figures.published,
    external_course_id: course.externalCourseId,
    has_certificate: course.hasCertificate,
  };
  if (options.deletedAt) view.deleted_at = course.deletedAt?.toISOString() ?? null;
  if (options.expiration) {
    Object.assign(view, {
      expires: course.expires,
      default_days_until_expiration: course.defaultDaysUntilExpiration,
      auto_re_enroll: course.autoReEnroll,
      re_enrollment_period: course.reEnrollmentPeriod,
    });
  }
  if (options.enrollmentProfiles) Object.assign(view, { open_enrollment: course.openEnrollment, uuid: course.uuid, enroll_url: enrollUrl(course.uuid) });
  if (options.enrollments) view.enrollments = enrollments ?? [];
  return view;
}

export const liveCourseEventData = (course: LiveCourse): LiveCourseEventData => ({ id: course.id, title: course.title });
