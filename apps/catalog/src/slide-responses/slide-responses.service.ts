import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { MAX_SLIDE_ATTEMPTS, QUIZ_SLIDE_TYPES, type RequestContext, type SlideQuestionView, type SlideResponseView } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { EnrollmentLifecycle } from '../enrollments/enrollment-lifecycle.service.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { publishedFacts } from '../learner-courses/learner-course.views.js';
import { Slide } from '../slides/slide.entity.js';
import { attemptsExhausted, oneChoiceOnly, quizSlideNotFound, slideHasNoQuestion, unknownChoices } from './slide-response.errors.js';
import { SlideResponse } from './slide-response.entity.js';

/** The published question of a quiz slide, or undefined when the published slide has none. */
export function publishedQuestion(slide: Slide): SlideQuestionView | undefined {
  const attributes = slide.publishedAttributes;
  if (!attributes?.type || !QUIZ_SLIDE_TYPES.includes(attributes.type)) return undefined;
  const question = attributes.question;
  return question && Array.isArray(question.choices) && question.choices.length > 0 ? question : undefined;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));

/**
 * Learners' answers to quiz slides (docs/catalog.md "Quiz slides"). An answer is the caller's, in their live
 * enrollment in the course, to a slide of the course as last published; attempts are numbered per
 * enrollment and slide under the enrollment's row lock, so concurrent answers never exceed the course's
 * `max_quiz_attempts`. The write joins the request's transaction, so an Idempotency-Key replays it.
 * In a native course, the answers are the enrollment's score while it is open (`quizScore`).
 */
@Injectable()
export class SlideResponsesService {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: EnrollmentLifecycle,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
    @InjectTenantRepository(SlideResponse) private readonly responses: TenantRepository<SlideResponse>,
  ) {}

  async answer(ctx: RequestContext, courseId: number, slideId: number, choiceIds: string[]): Promise<SlideResponseView> {
    return this.db.transaction(async () => {
      const course = await this.courses.findOne(ctx, { id: courseId });
      if (!course || course.deletedAt !== null || !course.isPublished) throw quizSlideNotFound(courseId, slideId);
      // The learner's own live enrollment, locked: their answers to this course are numbered one at a time.
      const enrollment = await this.enrollments.findOne(
        ctx,
        { userId: ctx.userId, enrollableType: 'CourseTemplate', enrollableId: courseId, deletedAt: IsNull() },
        { forUpdate: true },
      );
      if (!enrollment) throw quizSlideNotFound(courseId, slideId);
      // Learners see the course as last published: a slide never published is not theirs to see.
      const slide = await this.slides.findOne(ctx, { id: slideId, courseTemplateId: courseId });
      if (!slide || slide.position === null || !slide.publishedAttributes) throw quizSlideNotFound(courseId, slideId);
      const question = publishedQuestion(slide);
      if (!question) throw slideHasNoQuestion(slideId);

      const known = new Set(question.choices.map((c) => c.id));
      const unknown = choiceIds.filter((id) => !known.has(id));
      if (unknown.length > 0) throw unknownChoices(slideId, unknown);
      if (question.multiple !== true && choiceIds.length !== 1) throw oneChoiceOnly(slideId);

      const facts = publishedFacts(course);
      const limit = facts.maxQuizAttempts ?? MAX_SLIDE_ATTEMPTS;
      const used = await this.responses.count(ctx, { enrollmentId: enrollment.id, slideId });
      if (used >= limit) throw attemptsExhausted(slideId, limit);

      const correctIds = question.choices.filter((c) => c.correct === true).map((c) => c.id);
      const correct = sameSet(choiceIds, correctIds);
      const row = await this.responses.insert(ctx, {
        enrollmentId: enrollment.id,
        courseTemplateId: courseId,
        slideId,
        userId: ctx.userId,
        attempt: used + 1,
        choiceIds,
        correct,
      });
      // The answer is the learner's work in the course, as a SCORM player's commit is: it starts the enrollment and
      // sets its score. A completed enrollment keeps the score it completed with.
      if (enrollment.state !== 'complete' && facts.courseType === 'native') {
        await this.lifecycle.track(ctx, enrollment.id, { score: (await this.quizScore(ctx, enrollment.id, courseId)) ?? null, progress: null });
      }
      const remaining = limit - row.attempt;
      // Shown only once the slide is done for the learner, so the limit on attempts still means something.
      const reveal = facts.showCorrectResponse && (correct || remaining === 0);
      return {
        id: row.id,
        course_id: courseId,
        slide_id: slideId,
        enrollment_id: enrollment.id,
        choice_ids: row.choiceIds,
        correct,
        attempt: row.attempt,
        attempts_remaining: facts.maxQuizAttempts === null ? null : remaining,
        ...(reveal ? { correct_choice_ids: correctIds } : {}),
        created_at: row.createdAt.toISOString(),
      };
    });
  }

  /**
   * An enrollment's quiz score: the percent (0–100, rounded) of the course's published questions whose latest
   * answer in this enrollment is correct, an unanswered question counting as wrong; undefined when the course
   * as published has no question. The latest answer counts, as in the reports (docs/catalog.md "Quiz slides").
   */
  async quizScore(scope: TenantScope, enrollmentId: number, courseId: number): Promise<number | undefined> {
    const s = `"${this.db.schema}"`;
    const [row] = (await this.db.manager.query(
      `SELECT count(*)::int AS questions, count(*) FILTER (WHERE latest.correct)::int AS correct
         FROM ${s}.slides sl
         LEFT JOIN LATERAL (
           SELECT r.correct FROM ${s}.slide_responses r
            WHERE r.account_id = sl.account_id AND r.enrollment_id = $3 AND r.slide_id = sl.id
            ORDER BY r.attempt DESC LIMIT 1) latest ON true
        WHERE sl.account_id = $1 AND sl.course_template_id = $2 AND sl.position IS NOT NULL
          AND sl.published_attributes->>'type' = ANY($4) AND jsonb_typeof(sl.published_attributes->'question') = 'object'`,
      [scope.accountId, courseId, enrollmentId, QUIZ_SLIDE_TYPES],
    )) as { questions: number; correct: number }[];
    return row.questions === 0 ? undefined : Math.round((100 * row.correct) / row.questions);
  }
}
