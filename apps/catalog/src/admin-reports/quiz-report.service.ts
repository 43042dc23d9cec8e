import { Injectable } from '@nestjs/common';
import { type ExportPage, QUIZ_SLIDE_TYPES, type RequestContext } from '@lms/contracts';
import { Database, notFound } from '@lms/platform';
import { lastPublishedSql } from '../course-templates/course-template.views.js';
import { publishedQuestionSql } from '../slide-responses/slide-responses.service.js';
import { cursorOf, exportPage } from './export-page.js';

export const QUIZ_REPORT_COLUMNS = {
  course_template_id: 'Integer', course_title: 'String', quiz: 'String', quiz_type: 'String', interval_days: 'Integer',
  attempts: 'Integer', completed: 'Integer', average_score: 'Float', pass_rate: 'Float',
};

/**
 * The QuizReport's rows (docs/jobs.md "Admin reports"), from the quiz data the catalog records:
 * - a course's retain quiz of each interval (`retain_quizzes`, made when an enrollment completes):
 *   attempts = quizzes started or ended, completed = ended, average_score over ended quizzes with a score,
 *   pass_rate = share of those at or above the course's `passing_threshold` (null without one; as last
 *   published, like the course's title here: what learners were scored against, not a draft);
 * - a SCORM course's package (`scorm_registrations`, one per attempt): attempts = registrations with at
 *   least one commit, completed = completed ones, average_score over the scores reported (percent), pass_rate
 *   = `success_status` passed among passed and failed, or, without a verdict (none, or `unknown`), score against
 *   the threshold.
 * - a course's published quiz slide with a question (`slide_responses`, docs/catalog.md "Quiz slides"), over
 *   the learners' live enrollments: attempts = answers given, completed = learners who answered,
 *   average_score = percent of them whose latest answer is correct (each learner's latest answer scores 100
 *   or 0), pass_rate = that share (0 to 1), null with no learner; `quiz` names the slide ('Quiz slide 3: Title').
 * Rows are in (course, retain, SCORM, quiz slides; interval or slide id) order; the cursor is those three.
 */
@Injectable()
export class QuizReportService {
  constructor(private readonly db: Database) {}

  async page(ctx: RequestContext, options: { courseTemplateId?: number; after?: string; limit: number }): Promise<ExportPage> {
    const s = `"${this.db.schema}"`;
    if (options.courseTemplateId !== undefined) {
      const [course] = (await this.db.manager.query(`SELECT id FROM ${s}.course_templates WHERE account_id = $1 AND id = $2`, [ctx.accountId, options.courseTemplateId])) as unknown[];
      if (!course) throw notFound('COURSE_TEMPLATE_NOT_FOUND', `No course template ${options.courseTemplateId} in this account.`);
    }
    const after = cursorOf(options.after, 3) ?? [0, 0, -2];
    // The course as its learners were scored against it: its threshold as last published, and so its title.
    const threshold = lastPublishedSql('c', 'passing_threshold', 'integer');
    const found = (await this.db.manager.query(
      `WITH latest AS (
         SELECT DISTINCT ON (r.enrollment_id, r.slide_id) r.slide_id, r.correct, r.attempt
           FROM ${s}.slide_responses r
           JOIN ${s}.enrollments e ON e.account_id = r.account_id AND e.id = r.enrollment_id AND e.deleted_at IS NULL
          WHERE r.account_id = $1 AND ($2::int IS NULL OR r.course_template_id = $2)
          ORDER BY r.enrollment_id, r.slide_id, r.attempt DESC),
       answered AS (
         SELECT slide_id, sum(attempt) AS attempts, count(*) AS learners, count(*) FILTER (WHERE correct) AS passed
           FROM latest GROUP BY slide_id),
       quizzes AS (
         SELECT q.course_template_id, 1 AS kind, q.interval_days, q.interval_days AS ord, NULL::text AS label,
                count(*) FILTER (WHERE q.started_at IS NOT NULL OR q.ended_at IS NOT NULL) AS attempts,
                count(*) FILTER (WHERE q.ended_at IS NOT NULL) AS completed,
                avg(q.score) FILTER (WHERE q.ended_at IS NOT NULL) AS average_score,
                count(*) FILTER (WHERE q.ended_at IS NOT NULL AND q.score >= ${threshold}) AS passed,
                count(*) FILTER (WHERE q.ended_at IS NOT NULL AND q.score IS NOT NULL AND ${threshold} IS NOT NULL) AS judged
           FROM ${s}.retain_quizzes q
           JOIN ${s}.course_templates c ON c.account_id = q.account_id AND c.id = q.course_template_id
          WHERE q.account_id = $1 AND ($2::int IS NULL OR q.course_template_id = $2)
          GROUP BY q.course_template_id, q.interval_days
         UNION ALL
         SELECT r.course_template_id, 2 AS kind, NULL AS interval_days, -1 AS ord, NULL::text AS label,
                count(*) FILTER (WHERE r.commits > 0),
                count(*) FILTER (WHERE r.completed_at IS NOT NULL),
                avg(r.score),
                -- A package that gives no verdict records 'unknown' (or nothing yet): the score meets the threshold or not.
                count(*) FILTER (WHERE r.success_status = 'passed' OR (coalesce(r.success_status, 'unknown') NOT IN ('passed', 'failed') AND r.score >= ${threshold})),
                count(*) FILTER (WHERE r.success_status IN ('passed', 'failed') OR (r.score IS NOT NULL AND ${threshold} IS NOT NULL))
           FROM ${s}.scorm_registrations r
           JOIN ${s}.course_templates c ON c.account_id = r.account_id AND c.id = r.course_template_id
          WHERE r.account_id = $1 AND ($2::int IS NULL OR r.course_template_id = $2)
          GROUP BY r.course_template_id
         UNION ALL
         SELECT sl.course_template_id, 3 AS kind, NULL AS interval_days, sl.id AS ord,
                'Quiz slide ' || coalesce(sl.position::text, '-') || coalesce(': ' || (sl.published_attributes->>'title'), '') AS label,
                coalesce(a.attempts, 0), coalesce(a.learners, 0),
                CASE WHEN a.learners > 0 THEN 100.0 * a.passed / a.learners END,
                coalesce(a.passed, 0), coalesce(a.learners, 0)
           FROM ${s}.slides sl
           LEFT JOIN answered a ON a.slide_id = sl.id
          WHERE sl.account_id = $1 AND ($2::int IS NULL OR sl.course_template_id = $2)
            AND (a.slide_id IS NOT NULL
                 OR (${publishedQuestionSql('sl', '$7')})))
       SELECT q.course_template_id, ${lastPublishedSql('c', 'title', 'text')} AS course_title,
              CASE q.kind WHEN 1 THEN 'Retain quiz, day ' || q.interval_days WHEN 2 THEN 'SCORM package' ELSE q.label END AS quiz,
              CASE q.kind WHEN 1 THEN 'retain_quiz' WHEN 2 THEN 'scorm' ELSE 'quiz_slide' END AS quiz_type,
              q.interval_days, q.attempts::int AS attempts, q.completed::int AS completed,
              round(q.average_score::numeric, 2)::float8 AS average_score,
              CASE WHEN q.judged = 0 THEN NULL ELSE round(q.passed::numeric / q.judged, 4)::float8 END AS pass_rate,
              q.course_template_id || '.' || q.kind || '.' || q.ord AS __key
         FROM quizzes q
         JOIN ${s}.course_templates c ON c.account_id = $1 AND c.id = q.course_template_id
        WHERE (q.course_template_id, q.kind, q.ord) > ($3, $4, $5)
        ORDER BY q.course_template_id, q.kind, q.ord
        LIMIT $6`,
      [ctx.accountId, options.courseTemplateId ?? null, after[0], after[1], after[2], options.limit, QUIZ_SLIDE_TYPES],
    )) as Record<string, unknown>[];
    return exportPage(QUIZ_REPORT_COLUMNS, found, options.limit);
  }
}
