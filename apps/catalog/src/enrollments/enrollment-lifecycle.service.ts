import { Injectable } from '@nestjs/common';
import { Any, IsNull, Not } from 'typeorm';
import {
  CATALOG_ENROLLMENT_COMPLETED_EVENT,
  type CatalogEnrollmentCompletedData,
  ENROLLMENT_REMOVED_EVENT,
  ENROLLMENT_UPDATED_EVENT,
  type EnrollmentChanges,
  type EnrollmentRemovalReason,
  type RequestContext,
  systemContext,
} from '@lms/contracts';
import { Database, DepartedUsers, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { enrollmentSettings } from '../course-templates/course-template.views.js';
import { type EnrollableType, Enrollment } from './enrollment.entity.js';
import { completedInFuture, enrollmentNotFound, enrollmentTransitionInvalid } from './enrollment.errors.js';
import { enrollmentEventData } from './enrollment.views.js';
import { GroupEnrollment } from './group-enrollment.entity.js';
import { lockMembership } from './membership-lock.js';

const DAY_MS = 86_400_000;
/** Clocks of clients and servers differ a little: a completion (or a retain quiz's start) this far ahead is still "now". */
export const CLOCK_SKEW_MS = 60_000;

/** The course or task of an enrollment or a group enrollment, as one key. */
const itemOf = (x: { enrollableType: EnrollableType; enrollableId: number }) => `${x.enrollableType}:${x.enrollableId}`;
const dateOf = (value: string | null | undefined): Date | null | undefined => (value === undefined ? undefined : value === null ? null : new Date(value));
const sameInstant = (a: Date | null, b: Date | null) => (a === null ? b === null : b !== null && a.getTime() === b.getTime());

/** What a player reports of an attempt (`track`): its score and progress, and its completion once complete. */
export interface Tracking {
  score: number | null;
  progress: number | null;
  completedAt?: Date;
}

/**
 * The moves of one enrollment (docs/catalog.md "Enrollment states"): assigned → active → complete, and
 * removal from any state, which keeps the row as history. Each runs under the enrollment's row lock,
 * so a completion happens once however many requests race for it, and emits
 * `catalog.enrollment.completed` once.
 */
@Injectable()
export class EnrollmentLifecycle {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    private readonly departed: DepartedUsers,
    @InjectTenantRepository(GroupEnrollment) private readonly groupEnrollments: TenantRepository<GroupEnrollment>,
    private readonly directory: IdentityDirectory,
  ) {}

  async update(ctx: RequestContext, id: number, changes: EnrollmentChanges): Promise<Enrollment> {
    return this.db.transaction(async () => {
      const e = await this.lockLive(ctx, id);
      const before = JSON.stringify(e);
      const now = new Date();
      const endAt = dateOf(changes.end_at);
      const expiresAt = dateOf(changes.expires_at);
      if (endAt !== undefined) e.dueAt = endAt;
      if (expiresAt !== undefined) e.expiresAt = expiresAt;
      if (changes.score !== undefined) e.score = changes.score;

      let completedAt: Date | undefined;
      if (changes.completed_at !== undefined) {
        completedAt = new Date(changes.completed_at);
        if (completedAt.getTime() > now.getTime() + CLOCK_SKEW_MS) throw completedInFuture();
      } else if (changes.state === 'complete' && e.state !== 'complete') completedAt = now;

      if (e.state === 'complete') {
        // A completion is final; a new attempt is a re-enrollment. Repeating what is so changes nothing.
        if (changes.state !== undefined && changes.state !== 'complete') throw enrollmentTransitionInvalid(id, 'complete', `it cannot become ${changes.state}; re-enroll the learner for a new attempt`);
        if (completedAt && !sameInstant(completedAt, e.completedAt)) {
          throw enrollmentTransitionInvalid(id, 'complete', 'its completion cannot be changed; re-enroll the learner for a new attempt', 'enrollments[0].completed_at');
        }
      } else if (completedAt) {
        await this.complete(ctx, e, completedAt, expiresAt !== undefined);
      } else if (changes.state === 'active' && e.state === 'assigned') {
        e.state = 'active';
        e.startedAt = now;
      } else if (changes.state === 'assigned' && e.state === 'active') {
        throw enrollmentTransitionInvalid(id, 'active', 'a started enrollment cannot go back to assigned');
      }

      if (JSON.stringify(e) === before) return e;
      const saved = await this.enrollments.save(ctx, e);
      await this.outbox.add(ctx, ENROLLMENT_UPDATED_EVENT, enrollmentEventData(saved), String(saved.id));
      return saved;
    });
  }

  /**
   * Tracking from a player (SCORM): the enrollment starts, follows the attempt's progress while open, takes
   * its score (a sync may change it later), and completes once. Nothing changed, nothing written.
   */
  async track(scope: TenantScope, id: number, t: Tracking): Promise<void> {
    await this.db.transaction(async () => {
      const e = await this.lockLive(scope, id);
      const before = JSON.stringify(e);
      const completion = await this.follow(scope, e, t);
      if (completion) await this.outbox.add(scope, CATALOG_ENROLLMENT_COMPLETED_EVENT, completion, String(e.id));
      if (JSON.stringify(e) === before) return;
      const saved = await this.enrollments.save(scope, e);
      await this.outbox.add(scope, ENROLLMENT_UPDATED_EVENT, enrollmentEventData(saved), String(saved.id));
    });
  }

  /**
   * `track` for many course enrollments at once (a SCORM sync), each moved as `track` moves it: the live ones
   * locked in id order, the changed ones written by one update, and their completions, then their updates,
   * announced by one insert per batch (each enrollment's completion before its update, as `track` adds them).
   * A removed one is left as it is. Answers how many changed.
   */
  async trackAll(scope: TenantScope, tracking: Map<number, Tracking>): Promise<number> {
    if (tracking.size === 0) return 0;
    return this.db.transaction(async () => {
      const rows = await this.enrollments.find(scope, {
        where: { id: Any([...tracking.keys()]), enrollableType: 'CourseTemplate', deletedAt: IsNull() },
        order: { id: 'ASC' },
        lock: 'update',
      });
      const courses = new Map<number, Promise<CourseTemplate | null>>();
      const courseOf = (id: number) => courses.get(id) ?? courses.set(id, this.courses.findOne(scope, { id })).get(id)!;
      const completions: { data: CatalogEnrollmentCompletedData; subject: string }[] = [];
      const changed: Enrollment[] = [];
      for (const e of rows) {
        const before = JSON.stringify(e);
        const completion = await this.follow(scope, e, tracking.get(e.id)!, courseOf);
        if (completion) completions.push({ data: completion, subject: String(e.id) });
        if (JSON.stringify(e) !== before) changed.push(e);
      }
      if (changed.length === 0) return 0;
      await this.db.manager.query(
        `UPDATE catalog.enrollments e
            SET state = d.state, started_at = d.started_at, score = d.score, progress = d.progress, completed_at = d.completed_at, expires_at = d.expires_at, updated_at = now()
           FROM unnest($2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::real[], $7::timestamptz[], $8::timestamptz[])
                AS d(id, state, started_at, score, progress, completed_at, expires_at)
          WHERE e.account_id = $1 AND e.id = d.id`,
        [
          scope.accountId,
          changed.map((e) => e.id),
          changed.map((e) => e.state),
          changed.map((e) => e.startedAt?.toISOString() ?? null),
          changed.map((e) => e.score),
          changed.map((e) => e.progress),
          changed.map((e) => e.completedAt?.toISOString() ?? null),
          changed.map((e) => e.expiresAt?.toISOString() ?? null),
        ],
      );
      await this.outbox.addAll(scope, CATALOG_ENROLLMENT_COMPLETED_EVENT, completions);
      await this.outbox.addAll(scope, ENROLLMENT_UPDATED_EVENT, changed.map((e) => ({ data: enrollmentEventData(e), subject: String(e.id) })));
      return changed.length;
    });
  }

  /** Moves a locked enrollment as tracking says (`track`); answers its completion's event data when it completes now. */
  private async follow(scope: TenantScope, e: Enrollment, t: Tracking, courseOf?: (id: number) => Promise<CourseTemplate | null>): Promise<CatalogEnrollmentCompletedData | null> {
    if (e.state === 'assigned') {
      e.state = 'active';
      e.startedAt = new Date();
    }
    if (t.score !== null) e.score = t.score;
    if (t.progress !== null && e.state !== 'complete') e.progress = t.progress;
    return t.completedAt && e.state !== 'complete' ? this.markComplete(scope, e, t.completedAt, false, courseOf) : null;
  }

  /**
   * Removes a live enrollment (204); it stays as history, listed with `state=removed`. A course enrollment
   * by default; with `item`, an enrollment in that item only (another item's is the 404 of an unknown id).
   */
  async remove(ctx: RequestContext, id: number, item?: { type: EnrollableType; id: number }): Promise<void> {
    await this.db.transaction(async () => {
      const e = await this.lockLive(ctx, id, item?.type);
      if (item && e.enrollableId !== item.id) throw enrollmentNotFound(id);
      await this.retire(ctx, e, 'removed');
    });
  }

  /**
   * `identity.user.deleted`: the user's open (not complete) enrollments are withdrawn; completions stay. Recorded
   * first (DepartedUsers), so an enrollment of theirs still being inserted commits before this looks, or never.
   */
  async withdrawUser(scope: TenantScope, userId: number): Promise<number> {
    return this.db.transaction(async () => {
      await this.departed.record(scope, userId);
      return this.retireOpen(scope, { userId }, 'user_deleted');
    });
  }

  /**
   * A deleted task's open enrollments are withdrawn (`task_deleted`), in the deletion's transaction, which holds
   * the task row; its completions stay, as the record of what learners did. Answers how many were withdrawn.
   */
  withdrawTask(scope: TenantScope, taskId: number): Promise<number> {
    return this.retireOpen(scope, { enrollableType: 'Task', enrollableId: taskId }, 'task_deleted');
  }

  /**
   * Withdraws the open (not complete) live enrollments `where` names; answers how many. Locked in the order program
   * enrollments write their items (courses, then tasks, by id), then withdrawn by one update and their events by
   * one insert per batch (`Outbox.addAll`), as `retire` would one by one: a task of 20,000 learners is deleted
   * within its request.
   */
  private async retireOpen(scope: TenantScope, where: { userId: number } | { enrollableType: EnrollableType; enrollableId: number }, reason: EnrollmentRemovalReason): Promise<number> {
    const open = await this.enrollments.find(scope, {
      where: { ...where, deletedAt: IsNull(), state: Not('complete') },
      order: { enrollableType: 'ASC', enrollableId: 'ASC', id: 'ASC' },
      lock: 'update',
    });
    if (open.length === 0) return 0;
    await this.enrollments.update(scope, { id: Any(open.map((e) => e.id)) }, { deletedAt: new Date(), removalReason: reason });
    const events = open.map((e) => ({ data: enrollmentEventData({ ...e, removalReason: reason }), subject: String(e.id) }));
    await this.outbox.addAll(scope, ENROLLMENT_REMOVED_EVENT, events);
    return open.length;
  }

  /**
   * `identity.group_membership.removed`: enrollments the group brought that the learner never started
   * leave with them, unless another group enrolled in the same item still holds the learner: then the
   * enrollment is that group's (the earliest enrolled), and its leave decides. A started (or completed)
   * one stays. Answers how many were retired.
   *
   * Identity is asked, under the learner's membership lock, which of these groups hold them now, the left
   * one included: a leave handled after the learner joined again (a retried event, another replica, the
   * second look of an enrollment) finds them in the group and changes nothing. The rows are locked only
   * once identity has answered, so requests on them never wait for it.
   */
  async leaveGroup(scope: TenantScope, groupId: number, userId: number): Promise<number> {
    return this.db.transaction(async () => {
      await lockMembership(this.db, scope, userId);
      const unstarted = await this.unstarted(scope, groupId, userId).getMany();
      if (unstarted.length === 0) return 0;
      const others = await this.otherGroupEnrollments(scope, groupId, unstarted);
      const ctx = systemContext(scope.accountId, `group-leave-${groupId}-${userId}`);
      const holding = new Set(await this.directory.userGroups(ctx, userId, [groupId, ...others.map((g) => g.groupId)]));
      if (holding.has(groupId)) return 0;
      const holders = new Map<string, number>();
      for (const g of others) {
        const item = itemOf(g);
        if (holding.has(g.groupId) && !holders.has(item)) holders.set(item, g.groupId);
      }
      // Locked and read again: one started or removed since is left as it is now.
      const ids = unstarted.map((e) => e.id);
      const still = await this.unstarted(scope, groupId, userId).andWhere('e.id = ANY(:ids)', { ids }).setLock('pessimistic_write').getMany();
      let retired = 0;
      for (const e of still) {
        const holder = holders.get(itemOf(e));
        if (holder !== undefined) await this.regroup(scope, e, holder);
        else {
          await this.retire(scope, e, 'left_group');
          retired++;
        }
      }
      return retired;
    });
  }

  /** The learner's live enrollments the group brought that they never started. */
  private unstarted(scope: TenantScope, groupId: number, userId: number) {
    return this.enrollments
      .query(scope, 'e')
      .andWhere("e.group_id = :groupId AND e.user_id = :userId AND e.deleted_at IS NULL AND e.state = 'assigned'", { groupId, userId })
      .orderBy('e.id', 'ASC');
  }

  /** The other groups enrolled in the items of these enrollments, earliest enrolled first. */
  private async otherGroupEnrollments(scope: TenantScope, groupId: number, enrollments: Enrollment[]): Promise<GroupEnrollment[]> {
    const items = new Set(enrollments.map(itemOf));
    const others = await this.groupEnrollments
      .query(scope, 'g')
      .andWhere('g.group_id <> :groupId AND g.enrollable_id = ANY(:ids)', { groupId, ids: enrollments.map((e) => e.enrollableId) })
      .orderBy('g.created_at', 'ASC')
      .addOrderBy('g.group_id', 'ASC')
      .getMany();
    return others.filter((g) => items.has(itemOf(g)));
  }

  /** Points a live enrollment (the caller holds its row) at the group that holds its learner now, so that group's leave retires it. */
  private async regroup(scope: TenantScope, e: Enrollment, groupId: number): Promise<void> {
    e.groupId = groupId;
    const saved = await this.enrollments.save(scope, e);
    await this.outbox.add(scope, ENROLLMENT_UPDATED_EVENT, enrollmentEventData(saved), String(saved.id));
  }

  /** Ends a live enrollment as history with its reason, and announces it. */
  async retire(scope: TenantScope, e: Enrollment, reason: EnrollmentRemovalReason): Promise<Enrollment> {
    e.deletedAt = new Date();
    e.removalReason = reason;
    const saved = await this.enrollments.save(scope, e);
    await this.outbox.add(scope, ENROLLMENT_REMOVED_EVENT, enrollmentEventData(saved), String(saved.id));
    return saved;
  }

  /** assigned or active → complete, once: the caller holds the row lock. Starts it too, if it never was. */
  private async complete(scope: TenantScope, e: Enrollment, completedAt: Date, expiryGiven: boolean): Promise<void> {
    const data = await this.markComplete(scope, e, completedAt, expiryGiven);
    await this.outbox.add(scope, CATALOG_ENROLLMENT_COMPLETED_EVENT, data, String(e.id));
  }

  /** `complete` but for its event, whose data it answers. */
  private async markComplete(
    scope: TenantScope,
    e: Enrollment,
    completedAt: Date,
    expiryGiven: boolean,
    courseOf: (id: number) => Promise<CourseTemplate | null> = (id) => this.courses.findOne(scope, { id }),
  ): Promise<CatalogEnrollmentCompletedData> {
    e.state = 'complete';
    e.completedAt = completedAt;
    if (!e.startedAt || e.startedAt > completedAt) e.startedAt = completedAt;
    e.progress = 1;
    if (!expiryGiven && e.enrollableType === 'CourseTemplate') {
      const course = await courseOf(e.enrollableId);
      const { expires, defaultDaysUntilExpiration: days } = course ? enrollmentSettings(course) : { expires: false, defaultDaysUntilExpiration: null };
      if (expires && days) e.expiresAt = new Date(completedAt.getTime() + days * DAY_MS);
    }
    return {
      user_id: e.userId,
      enrollment_id: e.id,
      completed_at: completedAt.toISOString(),
      due_at: e.dueAt?.toISOString() ?? null,
      ...(e.enrollableType === 'Task' ? { task_id: e.enrollableId } : { course_id: e.enrollableId }),
    };
  }

  /**
   * A checkpoint enrollment moves on (issue 22): `active` (started, or open again after a rejection), or
   * `complete` (no approval needed, or approved), once. The caller holds the row (`lockLive(…, 'Task')`).
   */
  async moveCheckpoint(scope: TenantScope, e: Enrollment, to: 'active' | 'complete'): Promise<Enrollment> {
    if (e.state === 'complete') return e;
    const before = JSON.stringify(e);
    if (to === 'complete') await this.complete(scope, e, new Date(), false);
    else if (e.state === 'assigned') {
      e.state = 'active';
      e.startedAt = new Date();
    }
    if (JSON.stringify(e) === before) return e;
    const saved = await this.enrollments.save(scope, e);
    await this.outbox.add(scope, ENROLLMENT_UPDATED_EVENT, enrollmentEventData(saved), String(saved.id));
    return saved;
  }

  /** A live enrollment of the account in a course (or a task), locked for this transaction; removed and foreign ones are 404. */
  async lockLive(scope: TenantScope, id: number, type: EnrollableType = 'CourseTemplate'): Promise<Enrollment> {
    const e = await this.enrollments.findOne(scope, { id, enrollableType: type, deletedAt: IsNull() }, { lock: 'update' });
    return e ?? Promise.reject(enrollmentNotFound(id));
  }
}
