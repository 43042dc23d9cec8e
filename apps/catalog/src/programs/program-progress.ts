import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  CATALOG_ENROLLMENT_COMPLETED_EVENT,
  CatalogEnrollmentCompletedData,
  COURSE_TEMPLATE_PUBLISHED_EVENT,
  COURSE_TEMPLATE_UPDATED_EVENT,
  PROGRAM_UPDATED_EVENT,
  TASK_UPDATED_EVENT,
  USER_DELETED_EVENT,
  UserEventData,
} from '@lms/contracts';
import { CONSUMER_RETRY, Database, eventData, eventDataId, InjectTenantRepository, MESSAGE_BUS, type MessageBus, Outbox, type Subscription, subscribeWithInbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { defaultDueAt, EnrollmentsService } from '../enrollments/enrollments.service.js';
import { Task } from '../tasks/task.entity.js';

export const PROGRAM_PROGRESS_CONSUMER = 'catalog-program-progress';

/** A learner's standing in a program: its published courses now, how many they completed, and when the last one. */
export interface ProgramStanding {
  total: number;
  completed: number;
  lastCompletedAt: Date | null;
}

interface Missing {
  user_id: number;
  sub_account_id: number | null;
  required: boolean;
  due_at: Date | null;
  item_id: number;
}

type ProgramItemKind = 'CourseTemplate' | 'Task';

/** Where a program keeps each kind of item, and the item's own table. */
const PROGRAM_ITEMS: Record<ProgramItemKind, { items: string; column: string; table: string }> = {
  CourseTemplate: { items: 'program_courses', column: 'course_template_id', table: 'course_templates' },
  Task: { items: 'program_tasks', column: 'task_id', table: 'tasks' },
};

/**
 * Program enrollments follow their courses: a learner whose last published course of the program completes
 * completes the program (once, `catalog.enrollment.completed` with `program_id`, which the user summary
 * counts); a course added to a program reaches the learners enrolled in it; a deleted user's program
 * enrollments are withdrawn. All from catalog's own events, with the inbox, so a redelivery changes nothing.
 */
@Injectable()
export class ProgramProgress implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: Subscription;

  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly enrollments: EnrollmentsService,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await subscribeWithInbox(
      this.db,
      this.bus.events,
      {
        durable: PROGRAM_PROGRESS_CONSUMER,
        types: [CATALOG_ENROLLMENT_COMPLETED_EVENT, PROGRAM_UPDATED_EVENT, COURSE_TEMPLATE_PUBLISHED_EVENT, COURSE_TEMPLATE_UPDATED_EVENT, TASK_UPDATED_EVENT, USER_DELETED_EVENT],
        ...CONSUMER_RETRY,
      },
      async (event) => {
        const scope = { accountId: event.accountid };
        if (event.type === USER_DELETED_EVENT) await this.withdrawUser(scope, (await eventData<UserEventData>(UserEventData, event)).user_id);
        else if (event.type === PROGRAM_UPDATED_EVENT) {
          await this.reachLater(scope, 'CourseTemplate', eventDataId(event, 'id'));
          await this.reachLater(scope, 'Task', eventDataId(event, 'id'));
        } else if (event.type === TASK_UPDATED_EVENT) await this.itemPublished(scope, 'Task', eventDataId(event, 'id'));
        else if (event.type === COURSE_TEMPLATE_PUBLISHED_EVENT || event.type === COURSE_TEMPLATE_UPDATED_EVENT) await this.itemPublished(scope, 'CourseTemplate', eventDataId(event, 'id'));
        else {
          const data = await eventData<CatalogEnrollmentCompletedData>(CatalogEnrollmentCompletedData, event);
          if (data.course_id !== undefined) await this.courseCompleted(scope, data.user_id, data.course_id);
        }
      },
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
  }

  /** Standing of each learner in the program (learners with no published course in it are absent). */
  async standings(scope: TenantScope, programId: number, userIds: number[]): Promise<Map<number, ProgramStanding>> {
    if (userIds.length === 0) return new Map();
    const rows: { user_id: number; total: number; completed: number; last: Date | null }[] = await this.db.manager.query(
      `SELECT u.user_id, count(*)::int AS total, count(e.completed_at)::int AS completed, max(e.completed_at) AS last
         FROM unnest($3::int[]) AS u(user_id)
         CROSS JOIN (SELECT pc.course_template_id FROM catalog.program_courses pc
                       JOIN catalog.course_templates c ON c.account_id = pc.account_id AND c.id = pc.course_template_id
                      WHERE pc.account_id = $1 AND pc.program_id = $2 AND c.is_published AND c.deleted_at IS NULL) AS pc
         LEFT JOIN LATERAL (SELECT e.completed_at FROM catalog.enrollments e
                             WHERE e.account_id = $1 AND e.user_id = u.user_id AND e.enrollable_type = 'CourseTemplate'
                               AND e.enrollable_id = pc.course_template_id AND e.state = 'complete' AND e.deleted_at IS NULL
                             ORDER BY e.completed_at DESC LIMIT 1) AS e ON true
        GROUP BY u.user_id`,
      [scope.accountId, programId, userIds],
    );
    return new Map(rows.map((r) => [r.user_id, { total: r.total, completed: r.completed, lastCompletedAt: r.last }]));
  }

  /**
   * Completes the learner's live enrollment in the program when every published course of it is complete.
   * The program enrollment's row lock orders concurrent course completions: the last one to commit sees
   * the others' and completes the program, once.
   */
  async completeIfDone(scope: TenantScope, programId: number, userId: number): Promise<void> {
    await this.db.transaction(async (manager) => {
      const [enrollment]: { id: number; due_at: Date | null; completed_at: Date | null }[] = await manager.query(
        `SELECT id, due_at, completed_at FROM catalog.program_enrollments
          WHERE account_id = $1 AND program_id = $2 AND user_id = $3 AND deleted_at IS NULL FOR UPDATE`,
        [scope.accountId, programId, userId],
      );
      if (!enrollment || enrollment.completed_at) return;
      const standing = (await this.standings(scope, programId, [userId])).get(userId);
      if (!standing || standing.total === 0 || standing.completed < standing.total) return;
      const completedAt = standing.lastCompletedAt ?? new Date();
      await manager.query('UPDATE catalog.program_enrollments SET completed_at = $2, updated_at = now() WHERE id = $1', [enrollment.id, completedAt]);
      await this.outbox.add(
        scope,
        CATALOG_ENROLLMENT_COMPLETED_EVENT,
        { enrollment_id: enrollment.id, user_id: userId, program_id: programId, completed_at: completedAt.toISOString(), due_at: enrollment.due_at?.toISOString() ?? null },
        String(enrollment.id),
      );
    });
  }

  /**
   * A course or checkpoint published (or published again after `is_published: false`): the learners of each
   * program holding it are enrolled in it, as when it is added to a program. Nothing happens while it is unpublished.
   */
  private async itemPublished(scope: TenantScope, kind: ProgramItemKind, itemId: number): Promise<void> {
    const { items, column, table } = PROGRAM_ITEMS[kind];
    const programs: { program_id: number }[] = await this.db.manager.query(
      `SELECT i.program_id FROM catalog.${items} i
         JOIN catalog.${table} x ON x.account_id = i.account_id AND x.id = i.${column} AND x.is_published AND x.deleted_at IS NULL
        WHERE i.account_id = $1 AND i.${column} = $2`,
      [scope.accountId, itemId],
    );
    for (const { program_id } of programs) await this.reachLater(scope, kind, program_id);
  }

  /** A course completed: each program holding it in which the learner is enrolled may now be complete. */
  private async courseCompleted(scope: TenantScope, userId: number, courseId: number): Promise<void> {
    const programs: { program_id: number }[] = await this.db.manager.query(
      `SELECT DISTINCT pe.program_id FROM catalog.program_enrollments pe
         JOIN catalog.program_courses pc ON pc.account_id = pe.account_id AND pc.program_id = pe.program_id
        WHERE pe.account_id = $1 AND pe.user_id = $2 AND pc.course_template_id = $3 AND pe.deleted_at IS NULL AND pe.completed_at IS NULL`,
      [scope.accountId, userId, courseId],
    );
    for (const { program_id } of programs) await this.completeIfDone(scope, program_id, userId);
  }

  /**
   * The program's learners are enrolled in its published courses or checkpoints they have no enrollment in
   * yet (an item added later, or published since): not in one where they hold a live enrollment from
   * elsewhere, nor again in one this program brought and that was removed.
   */
  private async reachLater(scope: TenantScope, kind: ProgramItemKind, programId: number): Promise<void> {
    const { items, column, table } = PROGRAM_ITEMS[kind];
    const missing: Missing[] = await this.db.manager.query(
      `SELECT pe.user_id, pe.sub_account_id, pe.required, pe.due_at, i.${column} AS item_id
         FROM catalog.program_enrollments pe
         JOIN catalog.${items} i ON i.account_id = pe.account_id AND i.program_id = pe.program_id
         JOIN catalog.${table} x ON x.account_id = i.account_id AND x.id = i.${column} AND x.is_published AND x.deleted_at IS NULL
        WHERE pe.account_id = $1 AND pe.program_id = $2 AND pe.deleted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM catalog.enrollments e
                           WHERE e.account_id = pe.account_id AND e.enrollable_type = $3 AND e.enrollable_id = i.${column}
                             AND e.user_id = pe.user_id AND (e.deleted_at IS NULL OR e.program_id = pe.program_id))
        ORDER BY i.position, pe.user_id`,
      [scope.accountId, programId, kind],
    );
    const byItem = new Map<number, Missing[]>();
    for (const row of missing) byItem.set(row.item_id, [...(byItem.get(row.item_id) ?? []), row]);
    for (const [itemId, rows] of byItem) {
      const targets = rows.map((r) => ({ userId: r.user_id, subAccountId: r.sub_account_id, required: r.required, dueAt: r.due_at ?? undefined, groupId: null }));
      if (kind === 'CourseTemplate') await this.enrollments.enrollKnown(scope, itemId, targets, { programId });
      else await this.enrollInTask(scope, itemId, targets, programId);
    }
  }

  /** A checkpoint's enrollments, under a share lock on it: a task deleted or unpublished meanwhile takes none. */
  private async enrollInTask(scope: TenantScope, taskId: number, targets: Parameters<EnrollmentsService['insertEnrollments']>[2], programId: number): Promise<void> {
    await this.db.transaction(async () => {
      const task = await this.tasks.query(scope, 't').andWhere('t.id = :id', { id: taskId }).setLock('pessimistic_read').getOne();
      if (!task || task.deletedAt || !task.isPublished) return;
      await this.enrollments.insertEnrollments(scope, { type: 'Task', id: task.id, dueAt: defaultDueAt(task) }, targets, { programId });
    });
  }

  /** `identity.user.deleted`: the user's open program enrollments are withdrawn (completed ones stay as history). */
  private async withdrawUser(scope: TenantScope, userId: number): Promise<void> {
    await this.db.manager.query(
      'UPDATE catalog.program_enrollments SET deleted_at = now(), updated_at = now() WHERE account_id = $1 AND user_id = $2 AND deleted_at IS NULL AND completed_at IS NULL',
      [scope.accountId, userId],
    );
  }
}

