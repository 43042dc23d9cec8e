import type { ProgramEventData, ProgramView } from '@lms/contracts';
import type { Program } from './program.entity.js';

/** Open enrollment's own path: the learner POSTs there to enroll (docs/learner.md). */
export const programEnrollUrl = (uuid: string) => `/api/learner/open_programs/${uuid}/enrollment`;

export function toProgramView(program: Program, courseIds: number[]): ProgramView {
  return {
    id: String(program.id),
    title: program.title,
    description: program.description,
    is_published: program.isPublished,
    author_id: String(program.authorId),
    course_template_ids: courseIds.map(String),
    courses_count: courseIds.length,
    open_enrollment: program.openEnrollment,
    uuid: program.uuid,
    enroll_url: programEnrollUrl(program.uuid),
    created_at: program.createdAt.toISOString(),
    updated_at: program.updatedAt.toISOString(),
  };
}

export const programEventData = (program: Program, courseIds: number[]): ProgramEventData => ({
  id: program.id,
  title: program.title,
  is_published: program.isPublished,
  open_enrollment: program.openEnrollment,
  course_template_ids: courseIds,
});
