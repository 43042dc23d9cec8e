import type { DirectorySubAccountsReply, DirectoryUser, TaskAuthorView, TaskEventData, TaskView } from '@lms/contracts';
import type { EnrollmentFigures } from '../enrollments/enrollment-counts.js';
import type { Task } from './task.entity.js';

export const toPersonView = (user: DirectoryUser | undefined): TaskAuthorView | null =>
  user ? { id: String(user.id), uid: user.uid, name: user.name, email: user.email, avatar_url: user.avatar_url } : null;

export interface TaskExtras {
  users: Map<number, DirectoryUser>;
  subAccounts: DirectorySubAccountsReply;
  figures: Map<number, EnrollmentFigures>;
}

export function toTaskView(task: Task, extras: TaskExtras): TaskView {
  const counts = extras.figures.get(task.id)?.counts;
  const all = counts?.all ?? 0;
  const finished = counts?.finished ?? 0;
  const sub = [extras.subAccounts.current, extras.subAccounts.root, ...extras.subAccounts.sub_accounts].find((s) => s !== null && s.id === task.subAccountId);
  return {
    id: String(task.id),
    title: task.title,
    author_id: String(task.authorId),
    instructions: task.instructions,
    description: task.description,
    has_unpublished_changes: task.hasUnpublishedChanges,
    structured_body: task.structuredBody,
    is_published: task.isPublished,
    enrollments_count: all,
    enrollment_counts: { all, overdue: counts?.overdue ?? 0, incomplete: all - finished, finished },
    has_certificate: task.hasCertificate,
    requires_approval: task.requiresApproval,
    blocks_progress: task.blocksProgress,
    updated_at: task.updatedAt.toISOString(),
    attachments_count: task.attachments.length,
    requires_evidence: task.requiresEvidence,
    author: toPersonView(extras.users.get(task.authorId)),
    sub_account: sub
      ? { id: String(sub.id), name: sub.name, is_root: sub.is_root, not_current: sub.id !== extras.subAccounts.current?.id, sub_accounts_exist: extras.subAccounts.sub_accounts_exist }
      : null,
    default_approver_type: task.defaultApproverType,
    default_approver_id: task.defaultApproverId === null ? null : String(task.defaultApproverId),
    default_approver: task.defaultApproverId === null ? null : toPersonView(extras.users.get(task.defaultApproverId)),
    due_date_type: task.dueDateType,
    default_due_on_date: task.defaultDueOnDate,
    default_days_until_due: task.defaultDaysUntilDue,
    attachments: task.attachments,
  };
}

export const taskEventData = (task: Task, clonedFrom?: number): TaskEventData => ({
  id: task.id,
  title: task.title,
  is_published: task.isPublished,
  ...(clonedFrom === undefined ? {} : { cloned_from: clonedFrom }),
});
