import type { ProgramEventData, ProgramItemType, ProgramView } from '@lms/contracts';
import type { Program } from './program.entity.js';

/** Open enrollment's own path: the learner POSTs there to enroll (docs/learner.md). */
export const programEnrollUrl = (uuid: string) => `/api/learner/open_programs/${uuid}/enrollment`;

/** One place in a program's order. */
export interface ProgramItem {
  type: ProgramItemType;
  id: number;
}

const courseIdsIn = (items: ProgramItem[]) => items.flatMap((item) => (item.type === 'CourseTemplate' ? [item.id] : []));

export function toProgramView(program: Program, items: ProgramItem[]): ProgramView {
  const courseIds = courseIdsIn(items);
  return {
    id: String(program.id),
    title: program.title,
    description: program.description,
    is_published: program.isPublished,
    author_id: String(program.authorId),
    course_template_ids: courseIds.map(String),
    courses_count: courseIds.length,
    items: items.map((item, i) => ({ type: item.type, id: String(item.id), position: i + 1 })),
    open_enrollment: program.openEnrollment,
    uuid: program.uuid,
    enroll_url: programEnrollUrl(program.uuid),
    created_at: program.createdAt.toISOString(),
    updated_at: program.updatedAt.toISOString(),
  };
}

export const programEventData = (program: Program, items: ProgramItem[]): ProgramEventData => ({
  id: program.id,
  title: program.title,
  is_published: program.isPublished,
  open_enrollment: program.openEnrollment,
  course_template_ids: courseIdsIn(items),
  items: items.map((item) => ({ type: item.type, id: item.id })),
});
