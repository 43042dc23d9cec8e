import { COURSE_REPORT_SUBJECTS as S, REPORT_SCHEMA } from '../catalog/course-reports.contract.js';
import { CourseTemplateParams } from '../catalog/course-templates.contract.js';
import { defineRoute } from './route.js';

/** Spec "Course reports" (payload not shown): the spec's Report records (docs/catalog.md). */
export const CATALOG_COURSE_REPORT_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/author/course_templates/:course_template_id/reports', subject: S.list, status: 200,
    summary: "A course's figures from its enrollments: counts by state, completion (rate, average score, average time), and per-slide quiz results when it has quiz slides",
    params: CourseTemplateParams, response: { kind: 'envelope', key: 'reports', item: REPORT_SCHEMA },
  }),
];
