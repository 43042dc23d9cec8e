import { Injectable } from '@nestjs/common';
import { IsNull, Not } from 'typeorm';
import {
  type LearnerSlideView,
  type ListLearnerSlidesQuery,
  MAX_SLIDE_ATTEMPTS,
  pageWindow,
  QUIZ_SLIDE_TYPES,
  type RequestContext,
  type SlideQuestionView,
  type SlideResponseView,
} from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { EnrollmentLifecycle } from '../enrollments/enrollment-lifecycle.service.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { type LearnerCourseFacts, publishedFacts } from '../learner-courses/learner-course.views.js';
import { ProgramGate } from '../programs/program-gate.js';
import { Slide } from '../slides/slide.entity.js';
import { attemptsExhausted, courseNotYours, oneChoiceOnly, quizSlideNotFound, slideHasNoQuestion, unknownChoices } from './slide-response.errors.js';
import { SlideResponse } from './slide-response.entity.js';

/** The published question of a quiz slide, or undefined when the published slide has none. */
export function publishedQuestion(slide: Slide): SlideQuestionView | undefined {
  const attributes = slide.publishedAttributes;
  if (!attributes?.type || !QUIZ_SLIDE_TYPES.includes(attributes.type)) return undefined;
  const question = attributes.question;
  return question && Array.isArray(question.choices) && question.choices.length > 0 ? question : undefined;
}

/**
 * The same test in SQL, on slides aliased `alias`, with the quiz slide types (`QUIZ_SLIDE_TYPES`) as
 * parameter `types`: a published slide of a quiz type whose published attributes hold a question.
 */
export const publishedQuestionSql = (alias: string, types: string) =>
  `${alias}.position IS NOT NULL AND ${alias}.published_attributes->>'type' = ANY(${types}) AND jsonb_typeof(${alias}.published_attributes->'question') = 'object'`;

/** The same test on a slide's drafts: a live draft of a quiz type whose draft attributes hold a question (what a publish makes one). */
const draftQuestionSql = (alias: string, types: string) =>
  `${alias}.removed_at IS NULL AND ${alias}.draft_attributes->>'type' = ANY(${types}) AND jsonb_typeof(${alias}.draft_attributes->'question') = 'object'`;
const QUESTION_SQL = { published: publishedQuestionSql, draft: draftQuestionSql };

/** Learners are served a course while it is published and not archived. */
export const servedCourse = (course: CourseTemplate) => course.deletedAt === null && course.isPublished;

/**
 * ...and its slides as last published: a slide gets its `position` when published and keeps it, with its
 * published attributes, until the publish that deletes it (a deletion still a draft is still served).
 */
export const servedSlide = (slide: Slide) => slide.position !== null && slide.publishedAttributes !== null;

const correctChoiceIds = (question: SlideQuestionView) => question.choices.filter((c) => c.correct === true).map((c) => c.id);
const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));

/**
 * One answer as its learner sees it. The correct choices are shown only when the course's
 * `show_correct_response` is on and the slide is done for the learner (this answer correct, or no attempt
 * left), so the limit on attempts still means something.
 */
function toResponseView(row: SlideResponse, facts: LearnerCourseFacts, question: SlideQuestionView): SlideResponseView {
  const remaining = Math.max(0, (facts.maxQuizAttempts ?? MAX_SLIDE_ATTEMPTS) - row.attempt);
  const reveal = facts.showCorrectResponse && (row.correct || remaining === 0);
  return {
    id: row.id,
    course_id: row.courseTemplateId,
    slide_id: row.slideId,
    enrollment_id: row.enrollmentId,
    choice_ids: row.choiceIds,
    correct: row.correct,
    attempt: row.attempt,
    attempts_remaining: facts.maxQuizAttempts === null ? null : remaining,
    ...(reveal ? { correct_choice_ids: correctChoiceIds(question) } : {}),
    created_at: row.createdAt.toISOString(),
  };
}

/** A published slide as its learner reads it: a question without the verdicts, and their latest answer. */
function toLearnerSlideView(slide: Slide, facts: LearnerCourseFacts, latest: SlideResponse | undefined): LearnerSlideView {
  const question = publishedQuestion(slide);
  return {
    id: slide.id,
    course_id: slide.courseTemplateId,
    position: slide.position!,
    estimated_time: slide.publishedEstimatedTime,
    attachments: slide.publishedAttachments,
    attributes: {
      ...slide.publishedAttributes!,
      question: question ? { prompt: question.prompt, choices: question.choices.map(({ id, text }) => ({ id, text })), multiple: question.multiple === true } : null,
    },
    response: latest && question ? toResponseView(latest, facts, question) : null,
  };
}

/**
 * Learners' answers to quiz slides (docs/catalog.md "Quiz slides"). An answer is the caller's, in their live
 * enrollment in the course, to a slide of the course as last published; attempts are numbered per
 * enrollment and slide under the enrollment's row lock, so concurrent answers never exceed the course's
 * `max_quiz_attempts`. The write joins the request's transaction, so an Idempotency-Key replays it.
 * In a native course, the answers are the enrollment's score while it is open (`quizScore`), and its progress
 * reaches the answered slide at least.
 */
@Injectable()
export class SlideResponsesService {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly gate: ProgramGate,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
    @InjectTenantRepository(SlideResponse) private readonly responses: TenantRepository<SlideResponse>,
  ) {}

  async answer(ctx: RequestContext, courseId: number, slideId: number, choiceIds: string[]): Promise<SlideResponseView> {
    return this.db.transaction(async () => {
      // Locked: the learner's answers to this course are numbered one at a time.
      const { course, enrollment } = await this.learnerEnrollment(ctx, courseId, () => quizSlideNotFound(courseId, slideId), true);
      const slide = await this.publishedSlide(ctx, courseId, slideId);
      await this.gate.assertStartable(ctx, enrollment);
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

      const correct = sameSet(choiceIds, correctChoiceIds(question));
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
      // sets its score. A completed enrollment keeps what it completed with.
      if (enrollment.state !== 'complete' && facts.courseType === 'native') {
        await this.reach(ctx, enrollment, slide, (await this.quizScore(ctx, enrollment.id, courseId)) ?? null);
      }
      return toResponseView(row, facts, question);
    });
  }

  /** The learner has seen a published slide: as an answer does, it starts the enrollment and moves its progress. */
  async view(ctx: RequestContext, courseId: number, slideId: number): Promise<void> {
    await this.db.transaction(async () => {
      const { course, enrollment } = await this.learnerEnrollment(ctx, courseId, () => quizSlideNotFound(courseId, slideId), true);
      const slide = await this.publishedSlide(ctx, courseId, slideId);
      // Seeing a slide is doing the course, as answering one is.
      await this.gate.assertStartable(ctx, enrollment);
      if (enrollment.state !== 'complete' && publishedFacts(course).courseType === 'native') await this.reach(ctx, enrollment, slide, null);
    });
  }

  /** The learner has reached `slide` at least (its position over the published slides; never back), with `score` when known. */
  private async reach(ctx: RequestContext, enrollment: Enrollment, slide: Slide, score: number | null): Promise<void> {
    // Position and count in one statement, so from one snapshot: read apart, a publish between them could
    // make the position pass the count (progress over 1, refused by the table's check: a 500).
    const now = await this.slides
      .query(ctx, 's')
      .select('s.position', 'position')
      .addSelect((count) => count.select('count(*)::int').from(Slide, 'p').where('p.account_id = s.account_id AND p.course_template_id = s.course_template_id AND p.position IS NOT NULL'), 'published')
      .andWhere('s.id = :id', { id: slide.id })
      .getRawOne<{ position: number | null; published: number }>();
    // A slide a publish took away meanwhile moves nothing.
    const reached = now?.position ? Math.min(1, now.position / now.published) : 0;
    await this.lifecycle.track(ctx, enrollment.id, { score, progress: Math.max(enrollment.progress, reached) });
  }

  /** The published slides of a course the caller is enrolled in, in order, with their latest answers. */
  async list(ctx: RequestContext, courseId: number, query: ListLearnerSlidesQuery): Promise<[LearnerSlideView[], number]> {
    const { course, enrollment } = await this.learnerEnrollment(ctx, courseId, () => courseNotYours(courseId));
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.slides.findAndCount(ctx, { where: { courseTemplateId: courseId, position: Not(IsNull()) }, order: { position: 'ASC' }, skip, take });
    return [await this.present(ctx, course, enrollment, rows), total];
  }

  async show(ctx: RequestContext, courseId: number, slideId: number): Promise<LearnerSlideView> {
    const { course, enrollment } = await this.learnerEnrollment(ctx, courseId, () => quizSlideNotFound(courseId, slideId));
    return (await this.present(ctx, course, enrollment, [await this.publishedSlide(ctx, courseId, slideId)]))[0];
  }

  /**
   * The caller's live enrollment in a published, live course (any state: a completed learner may review), or
   * the one 404 of design §10 for everything else: not enrolled, an unknown or another account's course. With `lock`,
   * the course is read once the enrollment is held: one unpublished or archived while the write waited is the 404.
   */
  private async learnerEnrollment(ctx: RequestContext, courseId: number, notYours: () => Error, lock = false): Promise<{ course: CourseTemplate; enrollment: Enrollment }> {
    const enrollment = await this.enrollments.findOne(
      ctx,
      { userId: ctx.userId, enrollableType: 'CourseTemplate', enrollableId: courseId, deletedAt: IsNull() },
      lock ? { lock: 'update' } : undefined,
    );
    const course = enrollment ? await this.courses.findOne(ctx, { id: courseId }) : null;
    if (!enrollment || !course || !servedCourse(course)) throw notYours();
    return { course, enrollment };
  }

  /** Learners see the course as last published: a slide never published is not theirs to see. */
  private async publishedSlide(ctx: RequestContext, courseId: number, slideId: number): Promise<Slide> {
    const slide = await this.slides.findOne(ctx, { id: slideId, courseTemplateId: courseId });
    if (!slide || !servedSlide(slide)) throw quizSlideNotFound(courseId, slideId);
    return slide;
  }

  private async present(ctx: RequestContext, course: CourseTemplate, enrollment: Enrollment, slides: Slide[]): Promise<LearnerSlideView[]> {
    if (slides.length === 0) return [];
    const latest = await this.responses
      .query(ctx, 'r')
      .andWhere('r.enrollment_id = :enrollmentId AND r.slide_id IN (:...slideIds)', { enrollmentId: enrollment.id, slideIds: slides.map((s) => s.id) })
      .distinctOn(['r.slide_id'])
      .orderBy('r.slide_id')
      .addOrderBy('r.attempt', 'DESC')
      .getMany();
    const bySlide = new Map(latest.map((r) => [r.slideId, r]));
    const facts = publishedFacts(course);
    return slides.map((slide) => toLearnerSlideView(slide, facts, bySlide.get(slide.id)));
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
        WHERE sl.account_id = $1 AND sl.course_template_id = $2 AND ${publishedQuestionSql('sl', '$4')}`,
      [scope.accountId, courseId, enrollmentId, QUIZ_SLIDE_TYPES],
    )) as { questions: number; correct: number }[];
    return row.questions === 0 ? undefined : Math.round((100 * row.correct) / row.questions);
  }

  /**
   * The course's questions (their slide ids, ascending), as published, or as its drafts stand: what its scores are
   * counted over now, and after the next publish (which copies the drafts, deleted ones going).
   */
  private async questionIds(scope: TenantScope, courseId: number, side: 'published' | 'draft'): Promise<number[]> {
    const rows = (await this.db.manager.query(
      `SELECT sl.id FROM "${this.db.schema}".slides sl WHERE sl.account_id = $1 AND sl.course_template_id = $2 AND ${QUESTION_SQL[side]('sl', '$3')} ORDER BY sl.id`,
      [scope.accountId, courseId, QUIZ_SLIDE_TYPES],
    )) as { id: number }[];
    return rows.map((r) => Number(r.id));
  }

  /**
   * `quizScore` again for every open enrollment of a native course that has a score (its answers set it), when the
   * publish about to run adds or drops a question: that changes what their answers are worth, as it changes what
   * their completion will count. Run in the publish's transaction, under the course's lock, before the slides are
   * published, and counted over the drafts the publish is about to copy: so the enrollments are locked before the
   * slides, the order an answer takes them in (the other way round, an answer to a slide the publish drops
   * deadlocked with it). Set-based: a lock of the rows, then one statement (100,000 learners: 1.8 s for the count
   * alone, measured before the lock came). Announced by
   * the publish's own event, not one `catalog.enrollment.updated` each: that event carries no score, and 100,000
   * of them would outlast the request. Returns how many scores changed.
   */
  async recountOpenScores(scope: TenantScope, course: CourseTemplate): Promise<number> {
    // The draft course type is the one this publish gives its learners.
    if (course.courseType !== 'native') return 0;
    const now = await this.questionIds(scope, course.id, 'published');
    const next = await this.questionIds(scope, course.id, 'draft');
    if (JSON.stringify(now) === JSON.stringify(next)) return 0;
    const s = `"${this.db.schema}"`;
    // Locked first, in id order, and counted by the next statement: an answer committing meanwhile is waited for
    // and counted (an UPDATE would re-read a row it waited for, but count over its own snapshot, without it).
    await this.db.manager.query(
      `SELECT id FROM ${s}.enrollments WHERE account_id = $1 AND enrollable_type = 'CourseTemplate' AND enrollable_id = $2
          AND deleted_at IS NULL AND state <> 'complete' AND score IS NOT NULL ORDER BY id FOR UPDATE`,
      [scope.accountId, course.id],
    );
    const [, changed] = (await this.db.manager.query(
      `WITH questions AS (
         SELECT sl.id FROM ${s}.slides sl WHERE sl.account_id = $1 AND sl.course_template_id = $2 AND ${QUESTION_SQL.draft('sl', '$3')}),
       latest AS (
         SELECT DISTINCT ON (r.enrollment_id, r.slide_id) r.enrollment_id, r.correct
           FROM ${s}.slide_responses r JOIN questions q ON q.id = r.slide_id
          WHERE r.account_id = $1 AND r.course_template_id = $2
          ORDER BY r.enrollment_id, r.slide_id, r.attempt DESC),
       counted AS (
         SELECT e.id, round(100.0 * count(*) FILTER (WHERE l.correct) / NULLIF((SELECT count(*) FROM questions), 0))::int AS score
           FROM ${s}.enrollments e LEFT JOIN latest l ON l.enrollment_id = e.id
          WHERE e.account_id = $1 AND e.enrollable_type = 'CourseTemplate' AND e.enrollable_id = $2
            AND e.deleted_at IS NULL AND e.state <> 'complete' AND e.score IS NOT NULL
          GROUP BY e.id)
       UPDATE ${s}.enrollments e SET score = c.score, updated_at = now()
         FROM counted c
        -- No question left: the scores stay, as quizScore leaves a completion's.
        WHERE e.account_id = $1 AND e.id = c.id AND e.score IS DISTINCT FROM c.score AND EXISTS (SELECT 1 FROM questions)`,
      [scope.accountId, course.id, QUIZ_SLIDE_TYPES],
    )) as [unknown, number];
    return changed;
  }
}
