import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EXPORT_SUBJECTS, type ExportPage, ExportPageRequest, type RequestContext, type RpcRequest } from '@lms/contracts';
import { badRequest, Database, forbidden, Handles, notFound } from '@lms/platform';
import { cursorOf, exportPage } from './export-page.js';
import { QuizReportService } from './quiz-report.service.js';

const ENROLLMENT_COLUMNS = {
  id: 'Integer', course_template_id: 'Integer', user_id: 'Integer', state: 'String', required: 'Boolean', score: 'Integer', progress: 'Float',
  created_at: 'DateTime', started_at: 'DateTime', completed_at: 'DateTime', due_at: 'DateTime', expires_at: 'DateTime', group_id: 'Integer', program_id: 'Integer',
};

const requireAdmin = (ctx: RequestContext) => {
  if (!ctx.roles.includes('admin')) throw forbidden('EXPORT_FORBIDDEN', 'Only an administrator may read the quiz report.');
};

/** Catalog's rows for the downloads (docs/jobs.md "Downloads"), a page at a time, of the caller's account. */
@Controller()
export class CatalogExportsHandlers {
  constructor(
    private readonly db: Database,
    private readonly quizzes: QuizReportService,
  ) {}

  /** A course's live enrollments in id order: for administrators and the course's authors. */
  @Handles(EXPORT_SUBJECTS.courseEnrollments, { body: ExportPageRequest })
  async courseEnrollments(@Payload() { ctx, body }: RpcRequest<ExportPageRequest>): Promise<ExportPage> {
    const courseId = body.course_template_id;
    if (courseId === undefined) throw badRequest('COURSE_TEMPLATE_REQUIRED', 'course_template_id names the course.');
    const s = `"${this.db.schema}"`;
    const [course] = (await this.db.manager.query(
      `SELECT c.id, EXISTS (SELECT 1 FROM ${s}.course_authors a WHERE a.account_id = c.account_id AND a.course_template_id = c.id AND a.user_id = $3) AS is_author
         FROM ${s}.course_templates c WHERE c.account_id = $1 AND c.id = $2`,
      [ctx.accountId, courseId, ctx.userId],
    )) as { id: number; is_author: boolean }[];
    if (!course) throw notFound('COURSE_TEMPLATE_NOT_FOUND', `No course template ${courseId} in this account.`);
    if (!ctx.roles.includes('admin') && !(ctx.roles.includes('author') && course.is_author)) {
      throw forbidden('EXPORT_FORBIDDEN', "Only administrators and the course's authors may export its enrollments.");
    }
    const [after] = cursorOf(body.after, 1) ?? [0];
    const found = (await this.db.manager.query(
      `SELECT e.id, e.enrollable_id AS course_template_id, e.user_id, e.state, e.required, e.score, e.progress, e.created_at, e.started_at,
              e.completed_at, e.due_at, e.expires_at, e.group_id, e.program_id, e.id AS __key
         FROM ${s}.enrollments e
        WHERE e.account_id = $1 AND e.enrollable_type = 'CourseTemplate' AND e.enrollable_id = $2 AND e.deleted_at IS NULL AND e.id > $3
        ORDER BY e.id LIMIT $4`,
      [ctx.accountId, courseId, after, body.limit],
    )) as Record<string, unknown>[];
    return exportPage(ENROLLMENT_COLUMNS, found, body.limit);
  }

  @Handles(EXPORT_SUBJECTS.quizzes, { body: ExportPageRequest })
  async quizReport(@Payload() { ctx, body }: RpcRequest<ExportPageRequest>): Promise<ExportPage> {
    requireAdmin(ctx);
    return this.quizzes.page(ctx, { courseTemplateId: body.course_template_id, after: body.after, limit: body.limit });
  }
}
