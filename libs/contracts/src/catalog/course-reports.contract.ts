import type { JsonSchema } from '../routes/route.js';

export const COURSE_REPORT_SUBJECTS = { list: 'catalog.course_reports.list' } as const;

/** The spec's Report: `data` rows whose columns `data_types` names (String, Integer, Float). */
export interface ReportView {
  title: string;
  report_type: string;
  data: Record<string, string | number | null>[];
  data_types: Record<string, string>;
}

export const REPORT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['title', 'report_type', 'data', 'data_types'],
  properties: {
    title: { type: 'string' },
    report_type: { type: 'string', enum: ['enrollment_states', 'completion', 'quiz_results'] },
    data: { type: 'array', items: { type: 'object' }, description: 'rows; their columns are the keys of data_types' },
    data_types: { type: 'object', additionalProperties: { type: 'string', enum: ['String', 'Integer', 'Float'] } },
  },
};
