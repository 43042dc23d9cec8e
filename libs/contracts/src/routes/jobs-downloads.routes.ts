import { CreateDownloadBody, DOWNLOAD_SCHEMA, DOWNLOAD_SUBJECTS as S, DownloadParams } from '../jobs/downloads.contract.js';
import { defineRoute } from './route.js';

const download = { kind: 'object', key: 'download', item: DOWNLOAD_SCHEMA } as const;

/** Downloads (docs/jobs.md "Downloads"): a CSV made by jobs-worker, visible to its creator only. */
export const JOBS_DOWNLOAD_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/downloads', subject: S.create, status: 201,
    summary: 'Start a download of one type (users, course_enrollments, session_registrations, quiz_report, sign_in_report); 403 without permission for the type, 422 for an unknown type or bad info',
    body: CreateDownloadBody, response: download, errors: [422], invalidStatus: 422,
    // Every download type is an administrator's or an author's (docs/jobs.md); the type decides further.
    roles: ['admin', 'author'],
  }),
  defineRoute({
    method: 'GET', path: '/api/downloads/:id', subject: S.show, status: 200,
    summary: "A download and its state, for its creator only (403 for anyone else); url is null until 'done'",
    params: DownloadParams, response: download,
  }),
  defineRoute({
    method: 'GET', path: '/api/downloads/:id/file', subject: S.file, status: 302,
    summary: "Redirect to a signed URL of the download's CSV; 404 until it is done",
    params: DownloadParams, response: { kind: 'redirect' },
  }),
];
