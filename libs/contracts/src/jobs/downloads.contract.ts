import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { MAX_ID } from '../common/query.js';
import type { Role } from '../context.js';
import type { JsonSchema } from '../routes/route.js';

export const DOWNLOAD_SUBJECTS = {
  create: 'jobs.downloads.create',
  show: 'jobs.downloads.show',
  file: 'jobs.downloads.file',
} as const;

/** The job kind of every download (its type is a parameter of the job). */
export const DOWNLOAD_JOB = 'download';

/**
 * What can be downloaded (docs/jobs.md "Downloads"), each a CSV file, and who may ask for it:
 * - `users`: the account's users (administrators);
 * - `course_enrollments`: one course's enrollments, `info.course_template_id` (administrators and the course's authors);
 * - `session_registrations`: one live course session's registrations, `info.session_id` (administrators and authors);
 * - `quiz_report`: the admin QuizReport, `info.course_template_id` optional (administrators);
 * - `sign_in_report`: the admin SignInReport, `info.start_date` / `info.end_date` optional (administrators).
 */
export const DOWNLOAD_TYPES = ['users', 'course_enrollments', 'session_registrations', 'quiz_report', 'sign_in_report'] as const;
export type DownloadType = (typeof DOWNLOAD_TYPES)[number];

export class DownloadRequest {
  @IsString() @MaxLength(64)
  download_type: string;

  /** Parameters of the type (a course, a session, a period); checked per type by the jobs service (422 when wrong). */
  @IsOptional() @IsObject()
  info?: Record<string, unknown>;
}

export class CreateDownloadBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => DownloadRequest)
  download: DownloadRequest;
}

export class DownloadParams {
  @IsString() @MaxLength(64)
  id: string;
}

/** `pending` until a worker takes it, `running`, then `done` (its file downloadable) or `failed`. */
export type DownloadState = 'pending' | 'running' | 'done' | 'failed';

export interface DownloadView {
  id: string;
  download_type: string;
  user_id: string;
  state: DownloadState;
  /** `/api/downloads/<id>/file` once `done`, else null. */
  url: string | null;
}

export const DOWNLOAD_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'download_type', 'user_id', 'state', 'url'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    download_type: { type: 'string', enum: [...DOWNLOAD_TYPES] },
    user_id: { type: 'string' },
    state: { type: 'string', enum: ['pending', 'running', 'done', 'failed'] },
    url: { type: ['string', 'null'], description: "relative URL of the file (it redirects to a signed URL), null until 'done'" },
  },
};

/**
 * Row sources of the downloads and admin reports, served by the service that owns the rows (no service
 * reads another's schema): one page after `after`, in key order. The caller context decides what may be
 * read (its account, its roles); a course or session of another account is a 404.
 */
export const EXPORT_SUBJECTS = {
  users: 'identity.exports.users',
  signIns: 'identity.exports.sign_ins',
  courseEnrollments: 'catalog.exports.course_enrollments',
  quizzes: 'catalog.exports.quizzes',
  sessionRegistrations: 'scheduling.exports.session_registrations',
} as const;

/** Most rows an export page may ask for (a service also caps a page's bytes). */
export const MAX_EXPORT_PAGE = 5_000;

export class ExportPageRequest {
  @IsOptional() @IsString() @MaxLength(200)
  after?: string;

  @IsInt() @Min(1) @Max(MAX_EXPORT_PAGE)
  limit: number;

  @IsOptional() @IsInt() @Min(1) @Max(MAX_ID)
  course_template_id?: number;

  @IsOptional() @IsInt() @Min(1) @Max(MAX_ID)
  session_id?: number;

  /** A period (YYYY-MM-DD, inclusive) for the sign-in report. */
  @IsOptional() @Matches(/^\d{4}-\d{2}-\d{2}$/)
  start_date?: string;

  @IsOptional() @Matches(/^\d{4}-\d{2}-\d{2}$/)
  end_date?: string;
}

export interface ExportPage {
  /** Column names, the CSV header and the report's keys. */
  columns: string[];
  /** Each column's type as the Report's `data_types` names it (String, Integer, Float, Boolean, DateTime, Date). */
  data_types: Record<string, string>;
  /** Values in column order; timestamps RFC 3339, arrays as arrays. */
  rows: unknown[][];
  /** Where the next page starts; absent on the last page. */
  next?: string;
}

/** Where a download type's rows come from, who may ask for it, and its file's name (docs/jobs.md "Downloads"). */
export interface DownloadSource {
  /** Roles admitted; the owning service may narrow further (a course's enrollments: its own authors only). */
  roles: readonly Role[];
  subject: string;
  service: 'identity' | 'catalog' | 'scheduling';
  /** The rows name users by id: the worker adds each user's uid, name and e-mail from identity. */
  withUsers?: boolean;
  fileName(info: Record<string, unknown>): string;
}

export const DOWNLOAD_SOURCES: Record<DownloadType, DownloadSource> = {
  users: { roles: ['admin'], subject: EXPORT_SUBJECTS.users, service: 'identity', fileName: () => 'users.csv' },
  course_enrollments: {
    roles: ['admin', 'author'], subject: EXPORT_SUBJECTS.courseEnrollments, service: 'catalog', withUsers: true,
    fileName: (info) => `course_enrollments_${info.course_template_id}.csv`,
  },
  session_registrations: {
    roles: ['admin', 'author'], subject: EXPORT_SUBJECTS.sessionRegistrations, service: 'scheduling', withUsers: true,
    fileName: (info) => `session_registrations_${info.session_id}.csv`,
  },
  quiz_report: {
    roles: ['admin'], subject: EXPORT_SUBJECTS.quizzes, service: 'catalog',
    fileName: (info) => (info.course_template_id ? `quiz_report_${info.course_template_id}.csv` : 'quiz_report.csv'),
  },
  sign_in_report: { roles: ['admin'], subject: EXPORT_SUBJECTS.signIns, service: 'identity', fileName: () => 'sign_in_report.csv' },
};

/** A download job's parameters (its row in the jobs schema). */
export interface DownloadJobParams {
  download_type: DownloadType;
  /** The source's parameters, checked when the download was asked for. */
  info: Record<string, unknown>;
  /** The creator's roles then: the worker asks the sources with them. */
  roles: Role[];
}
