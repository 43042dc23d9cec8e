import { ADMIN_REPORT_SCHEMA, ADMIN_REPORT_SUBJECTS as S, AdminReportParams, AdminReportQuery } from '../catalog/admin-reports.contract.js';
import { defineRoute } from './route.js';

/** Admin reports (docs/jobs.md "Admin reports"): QuizReport and SignInReport. */
export const CATALOG_ADMIN_REPORT_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/admin/reports/:id', subject: S.show, status: 200,
    summary: 'QuizReport (per quiz of a course, retain quizzes, SCORM packages and quiz slides: attempts, average score, pass rate; course_template_id filter) or SignInReport (per user: last sign-in, sign-ins in the period); any other id is a 404',
    params: AdminReportParams, query: AdminReportQuery, response: { kind: 'envelope', key: 'reports', item: ADMIN_REPORT_SCHEMA },
  }),
];
