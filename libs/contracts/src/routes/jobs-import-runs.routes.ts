import { IMPORT_RUN_SCHEMA, IMPORT_RUN_SUBJECTS, ImportRunParams, ListImportRunsQuery, RunImportQuery } from '../jobs/import-runs.contract.js';
import { defineRoute } from './route.js';

const runs = { kind: 'envelope', key: 'import_runs', item: IMPORT_RUN_SCHEMA } as const;

/** Runs of the account's scheduled CSV import (docs/jobs.md "Scheduled CSV imports"); not in the spec, existing clients use them. */
export const JOBS_IMPORT_RUN_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/admin/import_profile/run', subject: IMPORT_RUN_SUBJECTS.run, status: 202,
    summary: 'Run the import profile now (a `pending` run; the worker fetches and applies the file). `dry_run=true` reports what would change and changes nothing',
    query: RunImportQuery, response: runs,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/import_profile/runs', subject: IMPORT_RUN_SUBJECTS.list, status: 200,
    summary: "The account's import runs, newest first, with their counts and first errors",
    query: ListImportRunsQuery, paged: true, response: runs,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/import_profile/runs/:id', subject: IMPORT_RUN_SUBJECTS.show, status: 200,
    summary: 'One import run', params: ImportRunParams, response: runs,
  }),
];
