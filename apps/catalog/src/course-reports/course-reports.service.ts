import { Injectable } from '@nestjs/common';
import { QUIZ_SLIDE_TYPES, type ReportView } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplatesService } from '../course-templates/course-templates.service.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { Slide } from '../slides/slide.entity.js';


interface FiguresRow {
  assigned: number;
  active: number;
  complete: number;
  overdue: number;
  removed: number;
  average_score: number | null;
  average_minutes: number | null;
}

interface SlideResultRow {
  slide_id: number;
  responses: number;
  correct: number;
}

const round = (value: number | null, places: number) => (value === null ? null : Number(value.toFixed(places)));

/**
 * Per-course figures, read from the enrollment rows in one aggregate: the live enrollments by state, the
 * removed ones (history), and the completion figures of the live completions.
 */
@Injectable()
export class CourseReportsService {
  constructor(
    private readonly db: Database,
    private readonly templates: CourseTemplatesService,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(Slide) private readonly slides: TenantRepository<Slide>,
  ) {}

  async reports(scope: TenantScope, courseId: number): Promise<ReportView[]> {
    await this.templates.find(scope, courseId);
    const [figures, quizSlides, results] = await Promise.all([this.figures(scope, courseId), this.quizSlides(scope, courseId), this.slideResults(scope, courseId)]);
    const live = figures.assigned + figures.active + figures.complete;
    const reports: ReportView[] = [
      {
        title: 'Enrollments by state',
        report_type: 'enrollment_states',
        data: [
          { state: 'assigned', count: figures.assigned },
          { state: 'active', count: figures.active },
          { state: 'complete', count: figures.complete },
          { state: 'overdue', count: figures.overdue },
          { state: 'removed', count: figures.removed },
        ],
        data_types: { state: 'String', count: 'Integer' },
      },
      {
        title: 'Completion',
        report_type: 'completion',
        data: [{
          enrollments: live,
          completed: figures.complete,
          completion_rate: live === 0 ? 0 : round(figures.complete / live, 4),
          average_score: round(figures.average_score, 2),
          average_minutes_to_complete: round(figures.average_minutes, 1),
        }],
        data_types: { enrollments: 'Integer', completed: 'Integer', completion_rate: 'Float', average_score: 'Float', average_minutes_to_complete: 'Float' },
      },
    ];
    if (quizSlides.length > 0) {
      reports.push({
        title: 'Quiz results by slide',
        report_type: 'quiz_results',
        data: quizSlides.map((slide) => {
          const { responses, correct } = results.get(slide.id) ?? { responses: 0, correct: 0 };
          const title = slide.draftAttributes.title ?? slide.publishedAttributes?.title ?? null;
          return { slide_id: slide.id, position: slide.newPosition, title, responses, correct, percent_correct: responses === 0 ? null : round((100 * correct) / responses, 2) };
        }),
        data_types: { slide_id: 'Integer', position: 'Integer', title: 'String', responses: 'Integer', correct: 'Integer', percent_correct: 'Float' },
      });
    }
    return reports;
  }

  private async figures(scope: TenantScope, courseId: number): Promise<FiguresRow> {
    const live = 'e.deleted_at IS NULL';
    const row = await this.enrollments
      .query(scope, 'e')
      .select(`count(*) FILTER (WHERE ${live} AND e.state = 'assigned')::int`, 'assigned')
      .addSelect(`count(*) FILTER (WHERE ${live} AND e.state = 'active')::int`, 'active')
      .addSelect(`count(*) FILTER (WHERE ${live} AND e.state = 'complete')::int`, 'complete')
      .addSelect(`count(*) FILTER (WHERE ${live} AND e.state <> 'complete' AND e.due_at < now())::int`, 'overdue')
      .addSelect('count(*) FILTER (WHERE e.deleted_at IS NOT NULL)::int', 'removed')
      .addSelect(`avg(e.score) FILTER (WHERE ${live} AND e.state = 'complete')::float8`, 'average_score')
      // From the start (or, never started, the enrollment) to the completion.
      .addSelect(`(avg(extract(epoch FROM e.completed_at - coalesce(e.started_at, e.created_at))) FILTER (WHERE ${live} AND e.state = 'complete') / 60)::float8`, 'average_minutes')
      .andWhere("e.enrollable_type = 'CourseTemplate' AND e.enrollable_id = :courseId", { courseId })
      .getRawOne<FiguresRow>();
    return row ?? { assigned: 0, active: 0, complete: 0, overdue: 0, removed: 0, average_score: null, average_minutes: null };
  }

  private async quizSlides(scope: TenantScope, courseId: number): Promise<Slide[]> {
    return this.slides
      .query(scope, 's')
      .andWhere('s.course_template_id = :courseId', { courseId })
      // A quiz slide in the drafts, or one still published as a quiz, its deletion a draft included: its answers are
      // counted until a publish drops it, as the QuizReport and the learners' scores count them.
      .andWhere(
        "((s.removed_at IS NULL AND s.draft_attributes->>'type' = ANY(:types)) OR (s.position IS NOT NULL AND s.published_attributes->>'type' = ANY(:types)))",
        { types: QUIZ_SLIDE_TYPES },
      )
      // A deleted draft has no draft position: after the others, in published order.
      .orderBy('s.new_position', 'ASC', 'NULLS LAST')
      .addOrderBy('s.position', 'ASC')
      .getMany();
  }

  /**
   * Per quiz slide: the learners (live enrollments) who answered it, and those whose latest answer is
   * correct (docs/catalog.md "Quiz slides": the latest answer is the learner's final word).
   */
  private async slideResults(scope: TenantScope, courseId: number): Promise<Map<number, SlideResultRow>> {
    const s = `"${this.db.schema}"`;
    const rows = (await this.db.manager.query(
      `SELECT latest.slide_id, count(*)::int AS responses, count(*) FILTER (WHERE latest.correct)::int AS correct
         FROM (SELECT DISTINCT ON (r.enrollment_id, r.slide_id) r.slide_id, r.correct
                 FROM ${s}.slide_responses r
                 JOIN ${s}.enrollments e ON e.account_id = r.account_id AND e.id = r.enrollment_id AND e.deleted_at IS NULL
                WHERE r.account_id = $1 AND r.course_template_id = $2
                ORDER BY r.enrollment_id, r.slide_id, r.attempt DESC) latest
        GROUP BY latest.slide_id`,
      [scope.accountId, courseId],
    )) as SlideResultRow[];
    return new Map(rows.map((row) => [row.slide_id, row]));
  }
}
