import type { DirectoryUser, EnrollmentEventData, EnrollmentLearnerView, EnrollmentView } from '@lms/contracts';
import type { Enrollment } from './enrollment.entity.js';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** Overdue is derived, never stored: not complete and past its due moment. */
export const isOverdue = (e: Pick<Enrollment, 'state' | 'dueAt'>, now = new Date()) => e.state !== 'complete' && e.dueAt !== null && e.dueAt < now;

export function toEnrollmentView(e: Enrollment, options: { history?: boolean } = {}): EnrollmentView {
  return {
    id: e.id,
    state: e.state,
    overdue: isOverdue(e),
    required: e.required,
    end_at: iso(e.dueAt),
    expires_at: iso(e.expiresAt),
    score: e.score,
    completed_at: iso(e.completedAt),
    started_at: iso(e.startedAt),
    progress: e.progress,
    course_template_id: e.enrollableId,
    group_id: e.groupId,
    program_id: e.programId,
    ...(options.history ? { removed_at: iso(e.deletedAt), removal_reason: e.removalReason } : {}),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
    links: { learner: { id: e.userId } },
  };
}

export function toLearnerView(userId: number, user: DirectoryUser | undefined): EnrollmentLearnerView {
  // A user identity no longer shows (hidden after deletion) is still the learner on record.
  return user
    ? { id: user.id, uid: user.uid, name: user.name, email: user.email, avatar_url: user.avatar_url, deleted_at: user.deleted_at }
    : { id: userId, uid: '', name: `User ${userId}`, email: null, avatar_url: null, deleted_at: null };
}

/** What an enrollment's events carry of it. */
type EnrollmentEventSource = Pick<Enrollment, 'id' | 'enrollableId' | 'userId' | 'state' | 'required' | 'dueAt' | 'groupId' | 'programId'> & Partial<Pick<Enrollment, 'removalReason'>>;

export function enrollmentEventData(e: EnrollmentEventSource): EnrollmentEventData {
  return {
    id: e.id,
    course_template_id: e.enrollableId,
    user_id: e.userId,
    state: e.state,
    required: e.required,
    due_at: iso(e.dueAt),
    group_id: e.groupId,
    program_id: e.programId,
    ...(e.removalReason ? { removal_reason: e.removalReason } : {}),
  };
}
