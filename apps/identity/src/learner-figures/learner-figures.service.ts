import { Injectable } from '@nestjs/common';
import type { CloudEvent, EnrollmentEventPayload } from '@lms/contracts';
import { ENROLLMENT_REMOVED_EVENT } from '@lms/contracts';
import { Database, type TenantScope } from '@lms/platform';
import type { EntityManager } from 'typeorm';

export interface LearnerFigures {
  completedCourses: number;
  /** The earliest due moment of the learner's open enrollments. */
  nextDueAt: Date | null;
}

export const NO_FIGURES: LearnerFigures = { completedCourses: 0, nextDueAt: null };

/**
 * A learner's figures from the projections of catalog's events: completed courses from the completions
 * the user summary counts, the next due date from the open enrollments (`learner_enrollments`).
 */
@Injectable()
export class LearnerFiguresService {
  constructor(private readonly db: Database) {}

  /** Applies one enrollment event; an event older than what the row holds changes nothing. */
  async record(manager: EntityManager, event: CloudEvent, data: EnrollmentEventPayload): Promise<void> {
    const open = event.type !== ENROLLMENT_REMOVED_EVENT && data.state !== 'complete';
    await manager.query(
      `INSERT INTO identity.learner_enrollments (account_id, enrollment_id, user_id, open, due_at, event_time)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id, enrollment_id) DO UPDATE
         SET user_id = excluded.user_id, open = excluded.open, due_at = excluded.due_at, event_time = excluded.event_time
       WHERE excluded.event_time >= identity.learner_enrollments.event_time`,
      [event.accountid, data.id, data.user_id, open, data.due_at, event.time],
    );
  }

  /** Figures of the given users of the caller's account (those with none get NO_FIGURES). */
  async of(scope: TenantScope, userIds: number[]): Promise<Map<number, LearnerFigures>> {
    if (userIds.length === 0) return new Map();
    const rows = (await this.db.manager.query(
      `SELECT u.user_id,
              (SELECT count(*)::int FROM identity.user_completions c WHERE c.account_id = $1 AND c.user_id = u.user_id AND c.kind = 'course') AS completed,
              (SELECT min(e.due_at) FROM identity.learner_enrollments e WHERE e.account_id = $1 AND e.user_id = u.user_id AND e.open) AS next_due
         FROM unnest($2::int[]) AS u(user_id)`,
      [scope.accountId, userIds],
    )) as { user_id: number; completed: number; next_due: Date | null }[];
    return new Map(rows.map((row) => [row.user_id, { completedCourses: row.completed, nextDueAt: row.next_due }]));
  }
}
