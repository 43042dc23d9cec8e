import { Injectable } from '@nestjs/common';
import type { EnrollmentCountsView } from '@lms/contracts';
import { Database, type TenantScope } from '@lms/platform';
import type { EnrollableType } from './enrollment.entity.js';

export const NO_ENROLLMENTS: EnrollmentCountsView = { all: 0, required: 0, optional: 0, finished: 0, not_started: 0, overdue: 0, in_progress: 0 };

export interface EnrollmentFigures {
  counts: EnrollmentCountsView;
  /** Some enrollment belongs to another sub-account than the item's. */
  shared: boolean;
  /** The nearest due moment still ahead among the open enrollments, or null. */
  nextDue: Date | null;
}

interface CountRow {
  id: number;
  live: number | null;
  required: number | null;
  finished: number | null;
  not_started: number | null;
  shared: number | null;
  overdue: string;
  next_due: Date | null;
}

/**
 * Enrollment figures of course templates and tasks. The counts are counters a trigger keeps in step with
 * the enrollment rows (`catalog.enrollment_counters`, migration 1765450000000), so they cost the same for
 * 100,000 enrollments as for one; `overdue` and the next due moment depend on the clock and come from the
 * partial index of the open enrollments' due dates (a range count, and its first entry ahead).
 */
@Injectable()
export class EnrollmentCounts {
  constructor(private readonly db: Database) {}

  /** Figures per item id; items without enrollments get zeros. */
  async of(scope: TenantScope, type: EnrollableType, ids: number[]): Promise<Map<number, EnrollmentFigures>> {
    const figures = new Map<number, EnrollmentFigures>(ids.map((id) => [id, { counts: { ...NO_ENROLLMENTS }, shared: false, nextDue: null }]));
    if (ids.length === 0) return figures;
    const rows: CountRow[] = await this.db.manager.query(
      `SELECT i.id, c.live, c.required, c.finished, c.not_started, c.shared,
              (SELECT count(*) FROM catalog.enrollments e
                WHERE e.account_id = $1 AND e.enrollable_type = $2 AND e.enrollable_id = i.id
                  AND e.deleted_at IS NULL AND e.completed_at IS NULL AND e.due_at IS NOT NULL AND e.due_at < now()) AS overdue,
              (SELECT e.due_at FROM catalog.enrollments e
                WHERE e.account_id = $1 AND e.enrollable_type = $2 AND e.enrollable_id = i.id
                  AND e.deleted_at IS NULL AND e.completed_at IS NULL AND e.due_at IS NOT NULL AND e.due_at >= now()
                ORDER BY e.due_at LIMIT 1) AS next_due
         FROM unnest($3::int[]) AS i(id)
         LEFT JOIN catalog.enrollment_counters c ON c.account_id = $1 AND c.enrollable_type = $2 AND c.enrollable_id = i.id`,
      [scope.accountId, type, ids],
    );
    for (const row of rows) {
      const all = row.live ?? 0;
      const required = row.required ?? 0;
      const finished = row.finished ?? 0;
      const notStarted = row.not_started ?? 0;
      figures.set(Number(row.id), {
        counts: { all, required, optional: all - required, finished, not_started: notStarted, overdue: Number(row.overdue), in_progress: all - finished - notStarted },
        shared: (row.shared ?? 0) > 0,
        nextDue: row.next_due ? new Date(row.next_due) : null,
      });
    }
    return figures;
  }

  /** SQL for "the item has no live enrollment", for list filters (`alias` is the item's table alias). */
  static noneSql(type: EnrollableType, alias: string): string {
    return `NOT EXISTS (SELECT 1 FROM catalog.enrollments e WHERE e.account_id = ${alias}.account_id AND e.enrollable_type = '${type}' AND e.enrollable_id = ${alias}.id AND e.deleted_at IS NULL)`;
  }
}
