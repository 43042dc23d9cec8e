import { CourseEnrollmentsParams } from '../catalog/enrollments.contract.js';
import { AUTHOR_LTI_CONTENT_ITEM_SCHEMA, CreateLtiContentItemsBody, LTI_CONTENT_ITEM_SCHEMA, LTI_LAUNCH_SCHEMA, LTI_SUBJECTS as S, LtiLaunchQuery } from '../catalog/lti.contract.js';
import { IdParams } from '../common/query.js';
import { defineRoute } from './route.js';

/** LTI 1.1 content items and their launch (issue 15; docs/learner.md). */
export const CATALOG_LTI_ROUTES = [
  defineRoute({
    method: 'POST', path: '/api/author/course_templates/:course_template_id/lti_content_items', subject: S.create, status: 201,
    summary: "Adds LTI 1.1 tool links to a course (the spec has no such route; docs/learner.md); the consumer secret is kept, never answered",
    params: CourseEnrollmentsParams, body: CreateLtiContentItemsBody, response: { kind: 'envelope', key: 'lti_content_items', item: AUTHOR_LTI_CONTENT_ITEM_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: '/api/learner/lti/content_items/:id', subject: S.show, status: 200,
    summary: "An LTI content item of a course the caller is enrolled in; else 404", params: IdParams,
    response: { kind: 'envelope', key: 'lti_content_items', item: LTI_CONTENT_ITEM_SCHEMA },
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/lti/content_items/:id/complete', subject: S.complete, status: 204,
    summary: "Completes the caller's enrollment in the item's course (204); 404 for an unknown item or one of a course the caller is not enrolled in",
    params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'GET', path: '/api/admin/lti_link_item_launch', subject: S.launch, status: 200,
    summary: 'The LTI 1.1 launch of an item for the caller: every launch parameter, OAuth 1.0a HMAC-SHA1 signed over POST launch_url with the item\'s consumer key and secret',
    query: LtiLaunchQuery, response: { kind: 'object', item: LTI_LAUNCH_SCHEMA },
  }),
];
