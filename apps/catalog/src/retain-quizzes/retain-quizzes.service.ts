import { Injectable } from '@nestjs/common';
import type { RequestContext, RetainQuizView } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { enrollmentSettings } from '../course-templates/course-template.views.js';
import { CLOCK_SKEW_MS } from '../enrollments/enrollment-lifecycle.service.js';
import type { Enrollment } from '../enrollments/enrollment.entity.js';
import { retainQuizComplete, retainQuizNotDue, retainQuizNotFound, retainQuizStartBeforeDue, retainQuizStartInFuture } from './retain-quiz.errors.js';
import { RetainQuiz } from './retain-quiz.entity.js';

const DAY_MS = 86_400_000;
const iso = (date: Date | null) => date?.toISOString() ?? null;

/** scheduled until due, then current; complete once ended. Derived at read time, so "becomes current when due" needs no timer. */
export function toRetainQuizView(q: RetainQuiz, now = new Date()): RetainQuizView {
  return {
    id: q.id,
    course_id: q.courseTemplateId,
    enrollment_id: q.enrollmentId,
    state: q.endedAt ? 'complete' : q.dueAt <= now ? 'current' : 'scheduled',
    progress: q.progress,
    score: q.score,
    current_question_id: q.currentQuestionId,
    started_at: iso(q.startedAt),
    ended_at: iso(q.endedAt),
    due_at: q.dueAt.toISOString(),
  };
}

/** Retain quizzes (docs/learner.md): made when a retain course's enrollment completes; each learner reaches only their own. */
@Injectable()
export class RetainQuizzesService {
  constructor(
    private readonly db: Database,
    @InjectTenantRepository(RetainQuiz) private readonly quizzes: TenantRepository<RetainQuiz>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
  ) {}

  /**
   * One quiz per distinct `retain_intervals` day count of the enrollment's course, due that many days after
   * the completion; none when the course does not retain. Repeating it changes nothing (unique key).
   */
  async schedule(scope: TenantScope, e: Enrollment): Promise<RetainQuiz[]> {
    if (e.enrollableType !== 'CourseTemplate' || !e.completedAt) return [];
    const course = await this.courses.findOne(scope, { id: e.enrollableId });
    const { retain, retainIntervals } = course ? enrollmentSettings(course) : { retain: false, retainIntervals: [] };
    if (!course || !retain || retainIntervals.length === 0) return [];
    const completedAt = e.completedAt.getTime();
    const days = [...new Set(retainIntervals)].sort((a, b) => a - b);
    await this.quizzes.insertNew(
      scope,
      days.map((d) => ({ enrollmentId: e.id, courseTemplateId: course.id, userId: e.userId, intervalDays: d, dueAt: new Date(completedAt + d * DAY_MS) })),
    );
    return this.quizzes.find(scope, { where: { enrollmentId: e.id }, order: { intervalDays: 'ASC', id: 'ASC' } });
  }

  async show(ctx: RequestContext, id: number): Promise<RetainQuiz> {
    const quiz = await this.quizzes.findOne(ctx, { id, userId: ctx.userId });
    return quiz ?? Promise.reject(retainQuizNotFound(id));
  }

  /**
   * Sets `started_at`, the one field a learner changes, on a due quiz; a completed quiz no longer changes. The start
   * lies between the due moment and now: a clock's skew beyond either end is taken as that end (so a completion
   * never ends before its start), anything further is a 400.
   */
  async start(ctx: RequestContext, id: number, startedAt: string): Promise<RetainQuiz> {
    return this.db.transaction(async () => {
      const quiz = await this.lock(ctx, id);
      if (quiz.endedAt) throw retainQuizComplete(id);
      const now = new Date();
      if (quiz.dueAt > now) throw retainQuizNotDue(id, quiz.dueAt);
      const start = new Date(startedAt).getTime();
      if (start > now.getTime() + CLOCK_SKEW_MS) throw retainQuizStartInFuture(id);
      if (start < quiz.dueAt.getTime() - CLOCK_SKEW_MS) throw retainQuizStartBeforeDue(id, quiz.dueAt);
      quiz.startedAt = new Date(Math.min(Math.max(start, quiz.dueAt.getTime()), now.getTime()));
      return this.quizzes.save(ctx, quiz);
    });
  }

  /** Completes a due quiz once (ended_at now, progress 1, the score given); again answers it unchanged. */
  async complete(ctx: RequestContext, id: number, score: number | undefined): Promise<RetainQuiz> {
    return this.db.transaction(async () => {
      const quiz = await this.lock(ctx, id);
      if (quiz.endedAt) return quiz;
      const now = new Date();
      if (quiz.dueAt > now) throw retainQuizNotDue(id, quiz.dueAt);
      quiz.endedAt = now;
      quiz.startedAt ??= now;
      quiz.progress = 1;
      if (score !== undefined) quiz.score = score;
      return this.quizzes.save(ctx, quiz);
    });
  }

  private async lock(ctx: RequestContext, id: number): Promise<RetainQuiz> {
    const quiz = await this.quizzes.query(ctx, 'q').andWhere('q.id = :id AND q.user_id = :user', { id, user: ctx.userId }).setLock('pessimistic_write').getOne();
    return quiz ?? Promise.reject(retainQuizNotFound(id));
  }
}
