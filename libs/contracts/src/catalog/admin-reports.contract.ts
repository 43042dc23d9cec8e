import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_ID, QueryInt } from '../common/query.js';
import { IsPlainDate } from '../identity/users.contract.js';
import type { JsonSchema } from '../routes/route.js';

export const ADMIN_REPORT_SUBJECTS = { show: 'catalog.admin_reports.show' } as const;

/** The admin reports (docs/jobs.md "Admin reports"); any other id is a 404. */
export const ADMIN_REPORT_IDS = ['QuizReport', 'SignInReport'] as const;

/** Most rows an admin report answers; the report's download holds them all. */
export const ADMIN_REPORT_MAX_ROWS = 1_000;

export class AdminReportParams {
  @IsString() @MaxLength(64)
  id: string;
}

export class AdminReportQuery {
  /** QuizReport: only this course's quizzes. */
  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  course_template_id?: number;

  /** SignInReport: the period whose sign-ins are counted (inclusive; default the last 30 days). */
  @IsOptional() @IsPlainDate()
  start_date?: string;

  @IsOptional() @IsPlainDate()
  end_date?: string;
}

export const ADMIN_REPORT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['title', 'report_type', 'data', 'data_types'],
  properties: {
    title: { type: 'string' },
    report_type: { type: 'string', enum: ['quiz_report', 'sign_in_report'] },
    data: { type: 'array', items: { type: 'object' }, description: 'rows; their columns are the keys of data_types' },
    data_types: { type: 'object', additionalProperties: { type: 'string', enum: ['String', 'Integer', 'Float', 'Boolean', 'Date', 'DateTime'] } },
  },
};
