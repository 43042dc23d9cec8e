import { COURSE_TEMPLATE_SCHEMA } from '../catalog/course-templates.contract.js';
import { LAUNCH_URL_SCHEMA, SCORM_SUBJECTS as S } from '../catalog/scorm.contract.js';
import { IdParams } from '../common/query.js';
import { defineRoute } from './route.js';

/** SCORM packages and their launch (issue 23; docs/scorm.md). */
export const CATALOG_SCORM_PACKAGE_ROUTES = [
  defineRoute({
    method: 'PUT', path: '/api/author/course_templates/:id/scorm_package', subject: S.upload, status: 200, errors: [413, 415],
    summary: 'Stores a SCORM 1.2 or 2004 package (the zip as the body, Content-Type: application/zip) for a SCORM course; new attempts play it',
    params: IdParams, upload: { contentTypes: ['application/zip', 'application/x-zip-compressed'] },
    response: { kind: 'envelope', key: 'course_templates', item: COURSE_TEMPLATE_SCHEMA },
  }),
];

export const CATALOG_SCORM_LAUNCH_ROUTES = [
  defineRoute({
    method: ['GET', 'POST'], path: '/api/learner/courses/:id/launch_url', subject: S.launchUrl, status: 200,
    summary: "The player URL of the caller's SCORM enrollment (`:id` is the enrollment id): an absolute, signed URL of one attempt, valid for 5 minutes",
    params: IdParams, response: { kind: 'object', item: LAUNCH_URL_SCHEMA }, absoluteUrls: ['url'],
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/courses/:id/mobile_scorm_launch_url', subject: S.mobileLaunch, status: 302,
    summary: "Redirects (302) to the player of the caller's SCORM enrollment; 400 for a course that is not SCORM or has no package",
    params: IdParams, response: { kind: 'redirect' },
  }),
];
