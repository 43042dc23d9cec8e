import { IdParams } from '../common/query.js';
import {
  AddCourseAuthorsBody,
  COURSE_AUTHOR_SCHEMA,
  COURSE_AUTHOR_SUBJECTS as A,
  CourseAuthorParams,
  ListCourseAuthorsQuery,
} from '../catalog/course-authors.contract.js';
import {
  COURSE_TEMPLATE_SCHEMA,
  COURSE_TEMPLATE_SUBJECTS as S,
  COURSE_TEMPLATE_TITLE_SCHEMA,
  CourseTemplateParams,
  CourseTemplateTitlesQuery,
  CreateCourseTemplatesBody,
  ListCourseTemplatesQuery,
  PublishCourseTemplateBody,
  ShowCourseTemplateQuery,
  UpdateCourseTemplateBody,
} from '../catalog/course-templates.contract.js';
import { defineRoute } from './route.js';

const courseTemplates = { kind: 'envelope', key: 'course_templates', item: COURSE_TEMPLATE_SCHEMA } as const;
const PATH = '/api/author/course_templates';

/** Spec "Course templates (author)" and "Course authors (author)". */
export const CATALOG_COURSE_TEMPLATE_ROUTES = [
  defineRoute({
    method: 'GET', path: PATH, subject: S.list, status: 200, paged: true,
    summary: 'List course templates: sort, filters[] (AND), title search, includes[], date filters, deleted ones on request',
    query: ListCourseTemplatesQuery, response: courseTemplates,
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/titles`, subject: S.titles, status: 200, paged: true,
    summary: 'Ids and titles of course templates, with the same sort, filters[] and search as the list',
    query: CourseTemplateTitlesQuery, response: { kind: 'envelope', key: 'course_templates', item: COURSE_TEMPLATE_TITLE_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:id`, subject: S.show, status: 200,
    summary: 'Show a course template (archived ones too) with enrollment counts, and its SCORM settings for a SCORM course',
    params: IdParams, query: ShowCourseTemplateQuery, response: courseTemplates,
  }),
  defineRoute({
    method: 'POST', path: PATH, subject: S.create, status: 201,
    summary: 'Create course templates (all or nothing); the caller becomes the first author of each',
    body: CreateCourseTemplatesBody, response: courseTemplates,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${PATH}/:id`, subject: S.update, status: 200, errors: [409],
    summary: "Change a course template's draft fields (an author of the course or an administrator); 400 when archived",
    params: IdParams, body: UpdateCourseTemplateBody, response: courseTemplates,
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:id`, subject: S.delete, status: 204, errors: [409],
    summary: 'Archive (soft-delete) a course template', params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/restore`, subject: S.restore, status: 200, errors: [409],
    summary: 'Restore an archived course template (200 with the record); 204 when it was not archived',
    params: IdParams, response: courseTemplates,
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/sync`, subject: S.sync, status: 204, roles: ['support'],
    summary: 'Sync the enrollments of a SCORM course with its upstream SCORM data (support users); 400 for any other course',
    params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/publish`, subject: S.publish, status: 200, errors: [409],
    summary: 'Publish the drafts (course fields and slides); 400 when archived. notify_filter, notify_message and re_enroll travel in the published event',
    params: IdParams, body: PublishCourseTemplateBody, response: courseTemplates,
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:course_template_id/authors`, subject: A.list, status: 200, paged: true,
    summary: "List a course's authors (deleted users stay listed)", params: CourseTemplateParams, query: ListCourseAuthorsQuery,
    response: { kind: 'envelope', key: 'authors', item: COURSE_AUTHOR_SCHEMA },
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:course_template_id/authors`, subject: A.add, status: 201, errors: [409],
    summary: 'Add authors by user id (all or nothing); 400 when archived, or when a user is unknown, lacks the author or admin role, or is an author already',
    params: CourseTemplateParams, body: AddCourseAuthorsBody, response: { kind: 'envelope', key: 'authors', item: COURSE_AUTHOR_SCHEMA },
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:course_template_id/authors/:id`, subject: A.remove, status: 204, errors: [409],
    summary: 'Remove an author (user id); 400 for the last author or when archived', params: CourseAuthorParams, response: { kind: 'empty' },
  }),
];
