import { CourseTemplateParams } from '../catalog/course-templates.contract.js';
import { CreateSlidesBody, ListSlidesQuery, ORDERED_SLIDE_SCHEMA, SLIDE_SUBJECTS as S, SlideParams, UpdateSlideBody } from '../catalog/slides.contract.js';
import { defineRoute } from './route.js';

const slides = { kind: 'envelope', key: 'slides', item: ORDERED_SLIDE_SCHEMA } as const;
const PATH = '/api/author/course_templates/:course_template_id/slides';

/** Spec "Course slides (author)": payloads designed here (docs/catalog.md), the records are OrderedSlides. */
export const CATALOG_SLIDE_ROUTES = [
  defineRoute({
    method: 'GET', path: PATH, subject: S.list, status: 200, paged: true,
    summary: "List a course's draft slides in draft order", params: CourseTemplateParams, query: ListSlidesQuery, response: slides,
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:id`, subject: S.show, status: 200,
    summary: 'Show a slide', params: SlideParams, response: slides,
  }),
  defineRoute({
    method: 'POST', path: PATH, subject: S.create, status: 201, errors: [409],
    summary: 'Add draft slides (all or nothing), each at its new_position (absent: at the end); 400 when the course is archived',
    params: CourseTemplateParams, body: CreateSlidesBody, response: slides,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${PATH}/:id`, subject: S.update, status: 200, errors: [409],
    summary: "Change a slide's draft: draft_attributes, estimated_time, attachments, or move it to new_position (the others shift)",
    params: SlideParams, body: UpdateSlideBody, response: slides,
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:id`, subject: S.delete, status: 204, errors: [409],
    summary: 'Delete a slide from the drafts; a published slide leaves the published course at its next publish',
    params: SlideParams, response: { kind: 'empty' },
  }),
];
