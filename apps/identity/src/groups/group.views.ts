import type { GroupEventData, GroupLearnerView, GroupView } from '@lms/contracts';
import { type LearnerFigures, NO_FIGURES } from '../learner-figures/learner-figures.service.js';
import type { Group } from './group.entity.js';

/** The user columns a learner record needs (the users feature owns the rest of the row). */
export interface LearnerSource {
  id: number;
  uid: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  avatarUrl: string | null;
}

export const groupPath = (id: number) => `/api/author/groups/${id}`;

export const toGroupView = (group: Group, usersCount: number): GroupView => ({
  id: String(group.id),
  parent_id: group.parentId === null ? '' : String(group.parentId),
  name: group.name,
  type: group.type,
  users_count: usersCount,
  links: { learners: `${groupPath(group.id)}/learners` },
});

/** "First Last", either alone, or the username when the person has no name on record. */
export const learnerName = (user: Pick<LearnerSource, 'uid' | 'firstName' | 'lastName'>): string =>
  [user.firstName, user.lastName]
    .map((part) => part?.trim() ?? '')
    .filter((part) => part !== '')
    .join(' ') || user.uid;

/** Completed courses and the next due date come from catalog's events, projected here (`LearnerFiguresService`). */
export const toLearnerView = (user: LearnerSource, groupId: number, figures: LearnerFigures = NO_FIGURES): GroupLearnerView => ({
  id: String(user.id),
  group: String(groupId),
  avatar: user.avatarUrl,
  completed_courses_count: figures.completedCourses,
  email: user.email,
  name: learnerName(user),
  next_due_date: figures.nextDueAt === null ? null : new Date(figures.nextDueAt).toISOString(),
});

export const groupEventData = (group: Group): GroupEventData => ({ id: group.id, parent_id: group.parentId, name: group.name, type: group.type });

/** A LIKE pattern matching `text` anywhere, with its own wildcards taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
