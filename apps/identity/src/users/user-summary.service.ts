import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { UserSummaryQuery, UserSummaryView } from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import type { CompletionKind } from './user-completion.entity.js';
import { UserCompletion } from './user-completion.entity.js';
import { invalidPeriod } from './user.errors.js';
import { UserFinder, type UserRef } from './user-finder.js';

export interface CompletionRecord {
  kind: CompletionKind;
  userId: number;
  enrollmentId: number;
  sourceId: number;
  completedAt: string;
  dueAt: string | null;
  eventId: string;
}

interface SummaryRow {
  completed_courses: string;
  completed_programs: string;
  completed_live_courses: string;
  total_on_time: string;
  total_overdue: string;
  all: string;
}

/** The user summary: counts over the completion projection that the completion events feed. */
@Injectable()
export class UserSummaryService {
  constructor(
    private readonly finder: UserFinder,
    @InjectTenantRepository(UserCompletion) private readonly completions: TenantRepository<UserCompletion>,
  ) {}

  /**
   * Counts completions whose completed_at falls in [start_date, end_date], whole UTC days, both ends
   * optional. On time: no due date, or completed by it. A deleted (not hidden) user still has a summary.
   */
  async summary(scope: TenantScope, ref: UserRef, period: UserSummaryQuery): Promise<UserSummaryView> {
    if (period.start_date && period.end_date && period.start_date > period.end_date) throw invalidPeriod();
    const user = await this.finder.get(scope, ref, { withDeleted: true });
    const qb = this.completions
      .query(scope, 'c')
      .andWhere('c.user_id = :userId', { userId: user.id })
      .select("count(*) FILTER (WHERE c.kind = 'course')", 'completed_courses')
      .addSelect("count(*) FILTER (WHERE c.kind = 'program')", 'completed_programs')
      .addSelect("count(*) FILTER (WHERE c.kind = 'live_course')", 'completed_live_courses')
      .addSelect('count(*) FILTER (WHERE c.due_at IS NULL OR c.completed_at <= c.due_at)', 'total_on_time')
      .addSelect('count(*) FILTER (WHERE c.completed_at > c.due_at)', 'total_overdue')
      .addSelect('count(*)', 'all');
    if (period.start_date) qb.andWhere("c.completed_at >= (CAST(:start AS date)::timestamp AT TIME ZONE 'UTC')", { start: period.start_date });
    if (period.end_date) qb.andWhere("c.completed_at < ((CAST(:end AS date) + 1)::timestamp AT TIME ZONE 'UTC')", { end: period.end_date });
    const row = (await qb.getRawOne<SummaryRow>()) as SummaryRow;
    return {
      completed_courses: Number(row.completed_courses),
      completed_programs: Number(row.completed_programs),
      completed_live_courses: Number(row.completed_live_courses),
      total_on_time: Number(row.total_on_time),
      total_overdue: Number(row.total_overdue),
      all: Number(row.all),
    };
  }

  /**
   * Records a completion in the consumer's transaction. One row per enrollment: a later completion replaces
   * an earlier one, an older one arriving late changes nothing.
   */
  async record(manager: EntityManager, accountId: number, c: CompletionRecord): Promise<void> {
    await manager.query(
      `INSERT INTO identity.user_completions (account_id, kind, enrollment_id, user_id, source_id, completed_at, due_at, event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (account_id, kind, enrollment_id) DO UPDATE
         SET user_id = excluded.user_id, source_id = excluded.source_id, completed_at = excluded.completed_at,
             due_at = excluded.due_at, event_id = excluded.event_id
       WHERE excluded.completed_at >= identity.user_completions.completed_at`,
      [accountId, c.kind, c.enrollmentId, c.userId, c.sourceId, c.completedAt, c.dueAt, c.eventId],
    );
  }
}
