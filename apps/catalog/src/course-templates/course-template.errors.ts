import { badRequest, DomainError, forbidden, notFound } from '@lms/platform';

export const courseTemplateNotFound = (id: number) => notFound('COURSE_TEMPLATE_NOT_FOUND', `Course template ${id} does not exist.`);

export const courseTemplateArchived = (id: number) =>
  badRequest('COURSE_TEMPLATE_ARCHIVED', `Course template ${id} is archived; restore it first.`);

export const courseTemplateNotScorm = (id: number) =>
  badRequest('COURSE_TEMPLATE_NOT_SCORM', `Course template ${id} is not a SCORM course: packages, SCORM settings and sync are for SCORM courses only.`);

export const scormSettingsOfOtherType = (courseType: string, field: string) =>
  badRequest('COURSE_TEMPLATE_NOT_SCORM', `A ${courseType} course takes no SCORM settings: they are for SCORM courses only.`, [{ field, message: 'is for SCORM courses only' }]);

export const courseTemplateNeverPublished = (id: number) =>
  badRequest('COURSE_TEMPLATE_NOT_PUBLISHED', `Course template ${id} has no published version; publish it with POST .../publish.`, [
    { field: 'course_template.is_published', message: 'use POST /api/author/course_templates/:id/publish to publish' },
  ]);

export const notAnAuthor = (type: string, id: number) =>
  forbidden('NOT_AN_AUTHOR', `Only an author of ${type} ${id} or an administrator may change it.`);

export const identityUnavailable = (detail: string) => new DomainError(503, 'IDENTITY_UNAVAILABLE', 'Service Unavailable', detail);
