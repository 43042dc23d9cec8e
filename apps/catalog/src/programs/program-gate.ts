import { Injectable } from '@nestjs/common';
import type { BlockedByView } from '@lms/contracts';
import { badRequest, Database, type TenantScope } from '@lms/platform';
import type { Enrollment } from '../enrollments/enrollment.entity.js';
import type { ProgramItem } from './program.views.js';

/** The checkpoint in a learner's way. */
export interface Blocker {
  taskId: number;
  title: string;
  programId: number;
}

const key = (item: ProgramItem) => `${item.type}:${item.id}`;

export const toBlockedByView = (b: Blocker | undefined): BlockedByView | null => (b ? { task_id: String(b.taskId), title: b.title, program_id: String(b.programId) } : null);

export const blockedByCheckpoint = (item: ProgramItem, b: Blocker) =>
  badRequest(
    'BLOCKED_BY_CHECKPOINT',
    `${item.type === 'Task' ? 'Task' : 'Course template'} ${item.id} comes after checkpoint ${b.taskId} ("${b.title}") in program ${b.programId}, which blocks progress until it is complete.`,
    [{ field: 'blocked_by', message: `task ${b.taskId} of program ${b.programId} is not complete` }],
  );

/**
 * `blocks_progress` (docs/catalog.md "Checkpoints in programs"): for a learner with a live enrollment in a
 * program, an item placed after a task with `blocks_progress` whose enrollment of theirs is live and not
 * complete cannot be started. Any of the learner's programs may block an item (the strictest wins);
 * an item no program of theirs blocks is open, whatever brought its enrollment.
 */
@Injectable()
export class ProgramGate {
  constructor(private readonly db: Database) {}

  /** The first blocker (by program id, then place) of each of the items that is blocked for the learner. */
  async blockers(scope: TenantScope, userId: number, items: ProgramItem[]): Promise<Map<string, Blocker>> {
    const courses = items.flatMap((i) => (i.type === 'CourseTemplate' ? [i.id] : []));
    const tasks = items.flatMap((i) => (i.type === 'Task' ? [i.id] : []));
    if (courses.length === 0 && tasks.length === 0) return new Map();
    const rows: { type: ProgramItem['type']; id: number; program_id: number; task_id: number; title: string }[] = await this.db.manager.query(
      `WITH mine AS (
         SELECT pe.program_id FROM catalog.program_enrollments pe
           JOIN catalog.programs p ON p.account_id = pe.account_id AND p.id = pe.program_id AND p.deleted_at IS NULL
          WHERE pe.account_id = $1 AND pe.user_id = $2 AND pe.deleted_at IS NULL
       ), placed AS (
         SELECT 'CourseTemplate' AS type, pc.course_template_id AS id, pc.program_id, pc.position FROM catalog.program_courses pc
          WHERE pc.account_id = $1 AND pc.course_template_id = ANY($3::int[]) AND pc.program_id IN (SELECT program_id FROM mine)
         UNION ALL
         SELECT 'Task', pt.task_id, pt.program_id, pt.position FROM catalog.program_tasks pt
          WHERE pt.account_id = $1 AND pt.task_id = ANY($4::int[]) AND pt.program_id IN (SELECT program_id FROM mine)
       )
       SELECT DISTINCT ON (placed.type, placed.id) placed.type, placed.id, gate.program_id, gate.task_id, t.title
         FROM placed
         JOIN catalog.program_tasks gate ON gate.account_id = $1 AND gate.program_id = placed.program_id AND gate.position < placed.position
         JOIN catalog.tasks t ON t.account_id = $1 AND t.id = gate.task_id AND t.blocks_progress AND t.deleted_at IS NULL
        WHERE EXISTS (SELECT 1 FROM catalog.enrollments e
                       WHERE e.account_id = $1 AND e.user_id = $2 AND e.enrollable_type = 'Task' AND e.enrollable_id = gate.task_id
                         AND e.deleted_at IS NULL AND e.state <> 'complete')
        ORDER BY placed.type, placed.id, gate.program_id, gate.position`,
      [scope.accountId, userId, courses, tasks],
    );
    return new Map(rows.map((r) => [key({ type: r.type, id: r.id }), { taskId: r.task_id, title: r.title, programId: r.program_id }]));
  }

  async blockerOf(scope: TenantScope, userId: number, item: ProgramItem): Promise<Blocker | undefined> {
    return (await this.blockers(scope, userId, [item])).get(key(item));
  }

  /** 400 `BLOCKED_BY_CHECKPOINT` naming the checkpoint, when one is in the learner's way. */
  private async assertOpen(scope: TenantScope, userId: number, item: ProgramItem): Promise<void> {
    const blocker = await this.blockerOf(scope, userId, item);
    if (blocker) throw blockedByCheckpoint(item, blocker);
  }

  /**
   * Doing an enrollment's item (completing it, seeing or answering its slides, launching it, adding evidence)
   * waits for the checkpoints before it: the 400 of `assertOpen`. A completed enrollment is not held: its
   * learner reviews, and nothing moves.
   */
  async assertStartable(scope: TenantScope, e: Pick<Enrollment, 'state' | 'userId' | 'enrollableType' | 'enrollableId'>): Promise<void> {
    if (e.state !== 'complete') await this.assertOpen(scope, e.userId, { type: e.enrollableType, id: e.enrollableId });
  }
}

export { key as programItemKey };
