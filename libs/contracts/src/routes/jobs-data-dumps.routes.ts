import { CreateDataDumpBody, DATA_DUMP_SCHEMA, DATA_DUMP_SUBJECTS, MODEL_NAMES_SCHEMA } from '../jobs/data-dumps.contract.js';
import { defineRoute } from './route.js';

const dumps = { kind: 'envelope', key: 'data_dumps', item: DATA_DUMP_SCHEMA } as const;

/** The account's data dump (docs/jobs.md): one at a time, made by jobs-worker, downloaded at a signed URL. */
export const JOBS_DATA_DUMP_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/admin/data_dumps', subject: DATA_DUMP_SUBJECTS.list, status: 200,
    summary: "The account's data dump with its status and date (an empty list before the first)",
    response: dumps,
  }),
  defineRoute({
    method: 'POST', path: '/api/admin/data_dumps', subject: DATA_DUMP_SUBJECTS.create, status: 200,
    summary: 'Start a new data dump, replacing the previous one once complete: every model, or the `only` ones (an unknown name is a 400)',
    body: CreateDataDumpBody, response: dumps,
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/data_dumps/model_names', subject: DATA_DUMP_SUBJECTS.modelNames, status: 200,
    summary: 'The models a dump can hold (one CSV file each)',
    response: { kind: 'object', key: 'model_names', item: MODEL_NAMES_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/data_dumps/download', subject: DATA_DUMP_SUBJECTS.download, status: 302,
    summary: 'Redirect to a signed URL of the last complete dump (a zip of one CSV per model); 404 when none is complete',
    response: { kind: 'redirect' },
  }),
];
