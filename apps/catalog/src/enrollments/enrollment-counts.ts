import { Injectable } from '@nestjs/common';
import type { EnrollmentCountsView } from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { type EnrollableType, Enrollment } from './enrollment.entity.js';

export const NO_ENROLLMENTS: EnrollmentCountsView = { all: 0, required: 0, optional: 0, finished: 0, not_started: 0, overdue: 0, in_progress: 0 };

export interface EnrollmentFigures {
  counts: EnrollmentCountsView;
  /** Some enrollment belongs to another sub-account than the item's. */
  shared: boolean;
  /** The nearest due moment still ahead among the open enrollments, or null. */
  nextDue: Date | null;
}

interface CountRow {
  enrollable_id: number;
  all: string;
  required: string;
  finished: string;
  not_started: string;
  overdue: string;
  shared: boolean;
  next_due: Date | null;
}

/**
 * Enrollment figures of course templates and tasks, counted from the live enrollment rows (the enrollment
 * feature owns their states; this is the one place authoring reads them from).
 */
@Injectable()
export class EnrollmentCounts {
  constructor(@InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>) {}

  /** Figures per item id; items without enrollments get zeros. `subAccounts` maps an item to its own sub-account. */
  async of(scope: TenantScope, type: EnrollableType, ids: number[], subAccounts: Map<number, number | null> = new Map()): Promise<Map<number, EnrollmentFigures>> {
    const figures = new Map<number, EnrollmentFigures>(ids.map((id) => [id, { counts: { ...NO_ENROLLMENTS }, shared: false, nextDue: null }]));
    if (ids.length === 0) return figures;
    const rows = await this.enrollments
      .query(scope, 'e')
      .select('e.enrollable_id', 'enrollable_id')
      .addSelect('count(*)', 'all')
      .addSelect('count(*) FILTER (WHERE e.required)', 'required')
      .addSelect('count(*) FILTER (WHERE e.completed_at IS NOT NULL)', 'finished')
      .addSelect('count(*) FILTER (WHERE e.completed_at IS NULL AND e.started_at IS NULL)', 'not_started')
      .addSelect('count(*) FILTER (WHERE e.completed_at IS NULL AND e.due_at < now())', 'overdue')
      .addSelect('bool_or(e.sub_account_id IS NOT NULL AND e.sub_account_id IS DISTINCT FROM sub.sub_account_id)', 'shared')
      .addSelect('min(e.due_at) FILTER (WHERE e.completed_at IS NULL AND e.due_at >= now())', 'next_due')
      .leftJoin(
        '(SELECT unnest(:ids::int[]) AS id, unnest(:subs::int[]) AS sub_account_id)',
        'sub',
        'sub.id = e.enrollable_id',
      )
      .andWhere('e.enrollable_type = :type', { type })
      .andWhere('e.enrollable_id = ANY(:ids)', { ids, subs: ids.map((id) => subAccounts.get(id) ?? null) })
      .andWhere('e.deleted_at IS NULL')
      .groupBy('e.enrollable_id')
      .getRawMany<CountRow>();
    for (const row of rows) {
      const all = Number(row.all);
      const required = Number(row.required);
      const finished = Number(row.finished);
      const notStarted = Number(row.not_started);
      figures.set(Number(row.enrollable_id), {
        counts: { all, required, optional: all - required, finished, not_started: notStarted, overdue: Number(row.overdue), in_progress: all - finished - notStarted },
        shared: row.shared === true,
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
