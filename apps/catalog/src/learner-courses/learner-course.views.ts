import { type BlockedByView, LIVE_TRAINING, type LearnerCourseView, type LiveCourseSummary } from '@lms/contracts';
import type { CourseTemplate } from '../course-templates/course-template.entity.js';
import { lastPublished } from '../course-templates/course-template.views.js';
import type { Enrollment } from '../enrollments/enrollment.entity.js';
import type { LearnerLiveEnrollment } from './learner-live-enrollment.entity.js';

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/** The published side of a course: learners see what was last published, not the authors' drafts. */
export interface LearnerCourseFacts {
  title: string;
  courseType: string;
  openBook: boolean;
  passingThreshold: number | null;
  hasCertificate: boolean;
  maxQuizAttempts: number | null;
  showCorrectResponse: boolean;
}

export function publishedFacts(c: CourseTemplate): LearnerCourseFacts {
  const pick = lastPublished(c);
  return {
    title: pick('title', c.title),
    courseType: pick('course_type', c.courseType),
    openBook: pick('open_book', c.openBook),
    passingThreshold: pick('passing_threshold', c.passingThreshold),
    hasCertificate: pick('has_certificate', c.hasCertificate),
    maxQuizAttempts: pick('max_quiz_attempts', c.maxQuizAttempts),
    showCorrectResponse: pick('show_correct_response', c.showCorrectResponse),
  };
}

/**
 * Whether the learner still has this course enrollment: unpublishing takes a course away from its learners (its
 * slides, launches and items as well: `servedCourse`) until it is published again, but a completion is the record
 * of what they did and stays, as it does when a task is deleted. An archived course's enrollments stay listed.
 */
/**
 * The learning standard an app plays an external course by: a SCORM course's is its current package's version
 * (`scorm_2004_4th`...; SCORM 1.2 before a package is uploaded), a third-party course's its catalogue's type.
 */
export const learningStandardOf = (courseType: string, packageVersion: string | undefined): string => (courseType === 'scorm' ? (packageVersion ?? 'scorm_1_2') : courseType);

export const stillTheirs = (course: CourseTemplate, e: Enrollment) => course.isPublished || e.state === 'complete';

/** Published slides of a course: their count, minutes and attachments. */
export interface SlideTotals {
  slides: number;
  minutes: number;
  attachments: number;
  /** Each slide's minutes, in slide order. */
  minutesEach: number[];
}

export interface ProgramPlace {
  title: string;
  index: number;
  count: number;
}

const sum = (minutes: number[]) => minutes.reduce((total, m) => total + m, 0);

/** A course's totals from each published slide's minutes, in slide order, and the attachments they hold. */
export const totalsOf = (minutesEach: number[], attachments: number): SlideTotals => ({ slides: minutesEach.length, minutes: sum(minutesEach), attachments, minutesEach });

const EMPTY_TOTALS = totalsOf([], 0);

/** The minutes of the slides after the first `done`: a 30-minute slide left is 30 minutes, however many short ones went before. */
const minutesAfter = (totals: SlideTotals, done: number) => sum(totals.minutesEach.slice(done));

/** A course enrollment (or, with `e` undefined, a course the caller may preview without one). */
export function toLearnerCourseView(course: CourseTemplate, e: Enrollment | undefined, totals: SlideTotals = EMPTY_TOTALS, program?: ProgramPlace, blockedBy: BlockedByView | null = null): LearnerCourseView {
  const facts = publishedFacts(course);
  const fraction = e?.state === 'complete' ? 1 : (e?.progress ?? 0);
  // Progress is a `real`: position / total comes back up to 3e-5 slides under the position (15 / 22 * 22).
  const done = Math.min(totals.slides, Math.floor(fraction * totals.slides + 1e-4));
  return {
    id: e?.id ?? course.id,
    is_enrolled: e !== undefined,
    progress: done,
    slide_total: totals.slides,
    time_remaining: minutesAfter(totals, done),
    location: null,
    sessions_count: null,
    next_session_start_at: null,
    deleted_at: iso(course.deletedAt),
    program_title: program?.title ?? null,
    index_of_program: program?.index ?? null,
    program_course_count: program?.count ?? null,
    open_book: facts.openBook,
    completed_at: iso(e?.completedAt),
    end_at: iso(e?.dueAt),
    estimated_time: totals.minutes,
    passing_threshold: facts.passingThreshold,
    required: e?.required ?? false,
    score: e?.score ?? null,
    state: e?.state ?? 'not_enrolled',
    title: facts.title,
    has_certificate: facts.hasCertificate,
    course_type: facts.courseType,
    attachments_count: totals.attachments,
    course_template_id: course.id,
    live_course_id: null,
    blocked_by: e && e.state !== 'complete' ? blockedBy : null,
  };
}

/** A live training: its figures come from scheduling, `deleted_at` the live course's deletion. */
export function toLiveTrainingView(row: LearnerLiveEnrollment, live: LiveCourseSummary | undefined): LearnerCourseView {
  return {
    id: row.id,
    is_enrolled: true,
    progress: 0,
    slide_total: 0,
    time_remaining: 0,
    location: live?.location ?? null,
    sessions_count: live?.sessions_count ?? 0,
    next_session_start_at: live?.next_session_start_at ?? null,
    deleted_at: live?.deleted_at ?? null,
    program_title: null,
    index_of_program: null,
    program_course_count: null,
    open_book: false,
    completed_at: iso(row.completedAt),
    end_at: null,
    estimated_time: 0,
    passing_threshold: null,
    required: true,
    score: null,
    state: row.completedAt ? 'complete' : 'active',
    title: live?.title ?? `Live course ${row.liveCourseId}`,
    has_certificate: live?.has_certificate ?? false,
    course_type: LIVE_TRAINING,
    attachments_count: 0,
    course_template_id: null,
    live_course_id: row.liveCourseId,
    blocked_by: null,
  };
}
