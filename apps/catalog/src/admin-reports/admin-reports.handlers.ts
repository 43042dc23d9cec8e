import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  ADMIN_REPORT_MAX_ROWS,
  ADMIN_REPORT_SUBJECTS,
  type AdminReportParams,
  type AdminReportQuery,
  envelope,
  EXPORT_SUBJECTS,
  type ExportPage,
  MAX_EXPORT_PAGE,
  type RequestContext,
  type RpcRequest,
} from '@lms/contracts';
import { forbidden, Handles, MESSAGE_BUS, type MessageBus, notFound, requestSigned, RUNTIME, type Runtime, signedChannel, type SignedRequestOptions, signedRequestsTo } from '@lms/platform';
import { QuizReportService } from './quiz-report.service.js';

interface AdminReport {
  title: string;
  report_type: string;
  data: Record<string, unknown>[];
  data_types: Record<string, string>;
}

type PageSource = (after: string | undefined, limit: number) => Promise<ExportPage>;

/** Pages of a source turned into a report's rows, up to ADMIN_REPORT_MAX_ROWS (the download holds them all). */
async function reportOf(title: string, reportType: string, source: PageSource): Promise<AdminReport> {
  const data: Record<string, unknown>[] = [];
  let after: string | undefined;
  let types: Record<string, string> = {};
  do {
    const page = await source(after, Math.min(MAX_EXPORT_PAGE, ADMIN_REPORT_MAX_ROWS - data.length));
    types = page.data_types;
    for (const row of page.rows) data.push(Object.fromEntries(page.columns.map((column, i) => [column, row[i]])));
    after = page.next;
  } while (after !== undefined && data.length < ADMIN_REPORT_MAX_ROWS);
  return { title, report_type: reportType, data, data_types: types };
}

/**
 * `GET /api/admin/reports/:id` (docs/jobs.md "Admin reports"): QuizReport from the catalog's own quiz rows,
 * SignInReport from identity's (asked over the bus, as the download of it is). Administrators only.
 */
@Controller()
export class AdminReportsHandlers {
  private readonly identity: SignedRequestOptions;

  constructor(
    private readonly quizzes: QuizReportService,
    @Inject(MESSAGE_BUS) bus: MessageBus,
    @Inject(RUNTIME) runtime: Runtime,
  ) {
    this.identity = signedRequestsTo('identity', signedChannel(bus, runtime.config));
  }

  @Handles(ADMIN_REPORT_SUBJECTS.show)
  async show(@Payload() { ctx, params, query }: RpcRequest<unknown, AdminReportQuery, AdminReportParams>) {
    if (!ctx.roles.includes('admin')) throw forbidden('NOT_AN_ADMINISTRATOR', 'Only administrators may read admin reports.');
    return envelope('reports', [await this.report(ctx, params.id, query)]);
  }

  private report(ctx: RequestContext, id: string, query: AdminReportQuery): Promise<AdminReport> {
    switch (id) {
      case 'QuizReport':
        return reportOf('Quiz report', 'quiz_report', (after, limit) => this.quizzes.page(ctx, { courseTemplateId: query.course_template_id, after, limit }));
      case 'SignInReport':
        return reportOf('Sign-in report', 'sign_in_report', (after, limit) =>
          requestSigned<ExportPage>(this.identity, ctx, EXPORT_SUBJECTS.signIns, {
            limit,
            ...(after !== undefined ? { after } : {}),
            ...(query.start_date ? { start_date: query.start_date } : {}),
            ...(query.end_date ? { end_date: query.end_date } : {}),
          }),
        );
      default:
        throw notFound('REPORT_NOT_FOUND', `There is no report '${id}': the reports are QuizReport and SignInReport.`);
    }
  }
}
