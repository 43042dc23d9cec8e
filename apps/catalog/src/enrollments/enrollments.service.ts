import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import {
  type DirectoryUser,
  ENROLLMENT_CREATED_EVENT,
  type EnrollmentEntry,
  type ListEnrollmentsQuery,
  pageWindow,
  type RequestContext,
  type SkippedEnrollmentView,
  systemContext,
} from '@lms/contracts';
import { Database, DepartedUsers, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { courseTemplateArchived, courseTemplateNotFound } from '../course-templates/course-template.errors.js';
import { enrollmentSettings } from '../course-templates/course-template.views.js';
import { IdentityDirectory } from '../directory/identity-directory.js';
import { type EnrollableType, Enrollment } from './enrollment.entity.js';
import { courseNotPublished, learnerInvalid, notAnEnroller } from './enrollment.errors.js';
import { enrollmentEventData } from './enrollment.views.js';
import { EnrollmentLifecycle } from './enrollment-lifecycle.service.js';
import { GroupEnrollment } from './group-enrollment.entity.js';
import { lockMembership } from './membership-lock.js';

const DAY_MS = 86_400_000;

/** Where an enrollment came from besides the request: the program whose enrollment made it. */
export interface EnrollmentSource {
  programId?: number;
}

export interface EnrollResult {
  created: Enrollment[];
  /** Users with a live enrollment in the course already: nothing changed for them. */
  skipped: SkippedEnrollmentView[];
}

/** One learner to enroll, after groups were resolved to their learners. */
export interface Target {
  userId: number;
  /** The sub-account the enrollment is made from. */
  subAccountId: number | null;
  required: boolean;
  dueAt: Date | null | undefined;
  groupId: number | null;
}

/**
 * The due moment of a new enrollment when the request gives none: the item's `default_due_on_date`
 * (the end of that day, UTC) when its due dates are absolute, else `default_days_until_due` days from
 * now; 0 days means no due date. A course's as last published (`enrollmentSettings`), a task's as saved.
 */
export function defaultDueAt(course: Pick<CourseTemplate, 'dueDateType' | 'defaultDueOnDate' | 'defaultDaysUntilDue'>, now = new Date()): Date | null {
  const absolute = course.dueDateType === 'absolute' || (course.dueDateType === null && course.defaultDueOnDate !== null);
  if (absolute && course.defaultDueOnDate) return new Date(`${course.defaultDueOnDate}T23:59:59.999Z`);
  return course.defaultDaysUntilDue > 0 ? new Date(now.getTime() + course.defaultDaysUntilDue * DAY_MS) : null;
}

/** Enrolls learners in courses and lists a course's enrollments. Changes of one enrollment: EnrollmentLifecycle. */
@Injectable()
export class EnrollmentsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly directory: IdentityDirectory,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(GroupEnrollment) private readonly groupEnrollments: TenantRepository<GroupEnrollment>,
    private readonly departed: DepartedUsers,
    private readonly lifecycle: EnrollmentLifecycle,
  ) {}

  /** Authors and administrators manage enrollments (the gateway checks the audience; a service checks again). */
  assertMayManage(ctx: RequestContext): void {
    if (!ctx.roles.includes('admin') && !ctx.roles.includes('author')) throw notAnEnroller();
  }

  /**
   * Enrolls users and the learners of groups in a published, live course; a group stays enrolled, so
   * learners who join it later are enrolled too (`enrollNewMember`). Unknown or deleted
   * users and unknown groups are a 400 naming the entry, and enroll nobody; a user with a live enrollment
   * in the course already is skipped and reported (a repeated or concurrent request enrolls once). The
   * first entry naming a user decides their `required` and due date. Callers check who may enroll
   * (`assertMayManage` for authors; a program's open enrollment has its own rule).
   */
  async enroll(ctx: RequestContext, courseTemplateId: number, entries: EnrollmentEntry[], source: EnrollmentSource = {}): Promise<EnrollResult> {
    // Another account's course is a 404 before anything about the learners is told.
    if (!(await this.courses.findOne(ctx, { id: courseTemplateId }))) throw courseTemplateNotFound(courseTemplateId);
    const targets = await this.resolve(ctx, entries);
    const groups = entries.filter((e) => e.group_id !== undefined);
    const result = await this.db.transaction(async () => {
      const course = await this.lockCourse(ctx, courseTemplateId);
      for (const entry of groups) await this.recordGroup(ctx, course.id, entry, targets.subAccountId);
      return this.insertTargets(ctx, course, targets.list, source);
    });
    if (groups.length === 0) return result;
    // Membership changes between identity's answer and the commit above: the membership consumer saw no
    // group enrollment, or not these enrollments, then. A second look after the commit does what it would
    // have done: learners who joined are enrolled, and a learner who left has the group's enrollment handled
    // by their leave's own step (leaveGroup: another enrolled group that still holds them takes it, else it
    // goes). A group deleted meanwhile keeps what it brought and is forgotten, as its deletion's consumer
    // does (forgetGroup). A change after this look finds the commit, so one of the two always sees the other.
    const { list: now, goneGroups, members } = await this.resolve(ctx, groups, { afterCommit: true });
    const kept: Enrollment[] = [];
    for (const e of result.created) {
      if (e.groupId === null || goneGroups.has(e.groupId) || members.get(e.groupId)?.has(e.userId)) kept.push(e);
      else {
        await this.lifecycle.leaveGroup(ctx, e.groupId, e.userId);
        const held = await this.enrollments.findOne(ctx, { id: e.id, deletedAt: IsNull() });
        if (held) kept.push(held);
      }
    }
    for (const groupId of goneGroups) await this.forgetGroup(ctx, groupId);
    const answered = new Set([...result.created.map((e) => e.userId), ...result.skipped.map((s) => s.user_id)]);
    const late = now.filter((t) => !answered.has(t.userId));
    const more = late.length === 0 ? { created: [], skipped: [] } : await this.db.transaction(async () => this.insertTargets(ctx, await this.lockCourse(ctx, courseTemplateId), late, source));
    return { created: [...kept, ...more.created], skipped: [...result.skipped, ...more.skipped] };
  }

  /**
   * `identity.group_membership.added`: the new member is enrolled in every live, published course the
   * group is enrolled in, with the group's settings. Courses archived or unpublished since are passed over.
   */
  async enrollNewMember(scope: TenantScope, groupId: number, userId: number): Promise<Enrollment[]> {
    return this.db.transaction(async () => {
      await lockMembership(this.db, scope, userId);
      const rules = await this.groupEnrollments.find(scope, { where: { groupId, enrollableType: 'CourseTemplate' }, order: { enrollableId: 'ASC' } });
      if (rules.length === 0) return [];
      // Asked under the membership lock, as a leave asks: a join handled after the learner left again enrolls nobody.
      const holding = await this.directory.userGroups(systemContext(scope.accountId, `group-join-${groupId}-${userId}`), userId, [groupId]);
      if (!holding.includes(groupId)) return [];
      const created: Enrollment[] = [];
      for (const rule of rules) {
        const course = await this.courses.findOne(scope, { id: rule.enrollableId }, { lock: 'share' });
        if (!course || course.deletedAt || !course.isPublished) continue;
        const target: Target = { userId, subAccountId: rule.subAccountId ?? course.subAccountId, required: rule.required, dueAt: rule.dueGiven ? rule.dueAt : undefined, groupId };
        created.push(...(await this.insertTargets(scope, course, [target], {})).created);
      }
      return created;
    });
  }

  /**
   * Enrolls learners already known to be live (a program's enrolled users in a course added to it later) in
   * a course, in a transaction of its own or the caller's. An archived or unpublished course enrolls nobody.
   */
  async enrollKnown(scope: TenantScope, courseTemplateId: number, targets: Target[], source: EnrollmentSource): Promise<EnrollResult> {
    return this.db.transaction(async () => {
      const course = await this.courses.findOne(scope, { id: courseTemplateId }, { lock: 'share' });
      if (!course || course.deletedAt || !course.isPublished) return { created: [], skipped: [] };
      return this.insertTargets(scope, course, targets, source);
    });
  }

  /** `identity.group.deleted`: nobody joins it any more; the enrollments it brought stay. */
  async forgetGroup(scope: TenantScope, groupId: number): Promise<void> {
    await this.groupEnrollments.delete(scope, { groupId });
  }

  /** The group is enrolled in the course (the first enrollment of a group decides its settings). */
  private async recordGroup(ctx: RequestContext, courseId: number, entry: EnrollmentEntry, subAccountId: number | null): Promise<void> {
    await this.groupEnrollments.insertNew(ctx, [
      {
        groupId: entry.group_id,
        enrollableType: 'CourseTemplate',
        enrollableId: courseId,
        required: entry.required ?? true,
        dueAt: entry.end_at ? new Date(entry.end_at) : null,
        dueGiven: entry.end_at !== undefined,
        subAccountId,
        createdBy: ctx.userId,
      },
    ]);
  }

  /** Inserts the targets' enrollments in the caller's transaction (the course is locked); those enrolled already are skipped. */
  private insertTargets(scope: TenantScope, course: CourseTemplate, targets: Target[], source: EnrollmentSource): Promise<EnrollResult> {
    return this.insertEnrollments(scope, { type: 'CourseTemplate', id: course.id, dueAt: defaultDueAt(enrollmentSettings(course), new Date()) }, targets, source);
  }

  /**
   * Inserts live enrollments of the targets in one course or task (`dueAt`: the item's default due moment,
   * for targets that name none); a learner enrolled already (even by a concurrent request) is skipped and reported.
   */
  async insertEnrollments(
    scope: TenantScope,
    item: { type: EnrollableType; id: number; dueAt: Date | null },
    targets: Target[],
    source: EnrollmentSource = {},
  ): Promise<EnrollResult & { departed: Set<number> }> {
    const fallbackDue = item.dueAt;
    // A user deleted since identity vouched for them is left out (DepartedUsers: the deletion meets this insert).
    const departed = await this.departed.among(scope, targets.map((t) => t.userId));
    const rows = targets.filter((t) => !departed.has(t.userId)).map((t) => ({
      enrollableType: item.type,
      enrollableId: item.id,
      userId: t.userId,
      subAccountId: t.subAccountId,
      required: t.required,
      state: 'assigned' as const,
      dueAt: t.dueAt === undefined ? fallbackDue : t.dueAt,
      groupId: t.groupId,
      programId: source.programId ?? null,
    }));
    // ON CONFLICT DO NOTHING against the one-live-enrollment key: a learner enrolled already (even by a
    // concurrent request) is skipped rather than failing the others. Inserted by user id, so two requests
    // naming the same learners in other orders wait on each other's keys in one order, never in a cycle
    // (a deadlock, then 409); answered in the request's order.
    const inserted = await this.enrollments.insertNew(scope, rows.sort((a, b) => a.userId - b.userId), ['id']);
    const ids = inserted.map((r) => Number(r.id));
    const asked = new Map(targets.map((t, i) => [t.userId, i]));
    const created = ids.length === 0 ? [] : (await this.enrollments.query(scope, 'e').andWhere('e.id = ANY(:ids)', { ids }).getMany()).sort((a, b) => asked.get(a.userId)! - asked.get(b.userId)!);
    await this.outbox.addAll(scope, ENROLLMENT_CREATED_EVENT, created.map((e) => ({ data: enrollmentEventData(e), subject: String(e.id) })));
    const createdUsers = new Set(created.map((e) => e.userId));
    const skippedUsers = targets.map((t) => t.userId).filter((id) => !createdUsers.has(id) && !departed.has(id));
    const existing = skippedUsers.length === 0 ? [] : await this.live(scope, item, skippedUsers);
    const skipped = existing.map((e): SkippedEnrollmentView => ({ user_id: e.userId, reason: 'already_enrolled', enrollment_id: e.id }));
    return { created, skipped, departed };
  }

  /** A page of the course's enrollments, newest first, and their total. `search` asks identity who matches. */
  async list(ctx: RequestContext, courseTemplateId: number, query: ListEnrollmentsQuery): Promise<[Enrollment[], number]> {
    if (!(await this.courses.findOne(ctx, { id: courseTemplateId }))) throw courseTemplateNotFound(courseTemplateId);
    return this.listOf(ctx, { type: 'CourseTemplate', id: courseTemplateId }, query);
  }

  /** A page of one course's or task's enrollments (the caller checked the item is the account's). */
  async listOf(ctx: RequestContext, item: { type: EnrollableType; id: number }, query: ListEnrollmentsQuery): Promise<[Enrollment[], number]> {
    const qb = this.enrollments
      .query(ctx, 'e')
      .andWhere('e.enrollable_type = :type', { type: item.type })
      .andWhere('e.enrollable_id = :item', { item: item.id });
    if (query.state === 'removed') qb.andWhere('e.deleted_at IS NOT NULL');
    else qb.andWhere('e.deleted_at IS NULL');
    // Overdue as the counts define it (completed_at is null exactly when the state is not complete, a CHECK
    // says so): the total is then a range of the open-due index instead of every live enrollment tested.
    if (query.state === 'overdue') qb.andWhere('e.completed_at IS NULL AND e.due_at IS NOT NULL AND e.due_at < now()');
    else if (query.state && query.state !== 'removed') qb.andWhere('e.state = :state', { state: query.state });
    if (query.search) {
      const { ids } = await this.directory.searchUsers(ctx, query.search);
      qb.andWhere('e.user_id = ANY(:users)', { users: ids });
    }
    const { skip, take } = pageWindow(query);
    const [rows, count] = await Promise.all([
      qb.clone().orderBy('e.created_at', 'DESC').addOrderBy('e.id', 'DESC').offset(skip).limit(take).getMany(),
      qb.clone().select('count(*)', 'n').getRawOne<{ n: string }>(),
    ]);
    return [rows, Number(count?.n ?? 0)];
  }

  /** Live enrollments of these users in the course or task. */
  private live(scope: TenantScope, item: { type: EnrollableType; id: number }, userIds: number[]): Promise<Enrollment[]> {
    return this.enrollments
      .query(scope, 'e')
      .andWhere('e.enrollable_type = :type AND e.enrollable_id = :itemId AND e.deleted_at IS NULL', { type: item.type, itemId: item.id })
      .andWhere('e.user_id = ANY(:userIds)', { userIds })
      .orderBy('e.id', 'ASC')
      .getMany();
  }

  /**
   * The course, shared-locked for the transaction: enrollments of one course run side by side, while an
   * archive (which takes the row for update) waits for them, and they for it.
   */
  private async lockCourse(scope: TenantScope, id: number): Promise<CourseTemplate> {
    const course = await this.courses.findOne(scope, { id }, { lock: 'share' });
    if (!course) throw courseTemplateNotFound(id);
    if (course.deletedAt) throw courseTemplateArchived(id);
    if (!course.isPublished) throw courseNotPublished(id);
    return course;
  }

  /**
   * Users and groups to learners, checked with identity before anything is written (the first entry naming a
   * user decides their settings). `afterCommit`: a group deleted since is named in `goneGroups`, not refused.
   */
  async resolve(
    ctx: RequestContext,
    entries: EnrollmentEntry[],
    { afterCommit = false } = {},
  ): Promise<{ list: Target[]; subAccountId: number | null; goneGroups: Set<number>; members: Map<number, Set<number>> }> {
    const [users, { current }] = await Promise.all([
      this.directory.users(ctx, entries.flatMap((e) => (e.user_id === undefined ? [] : [e.user_id]))),
      this.directory.subAccounts(ctx),
    ]);
    const subAccountId = current?.id ?? null;
    const targets: Target[] = [];
    const goneGroups = new Set<number>();
    const members = new Map<number, Set<number>>();
    const seen = new Set<number>();
    // A learner the request names is enrolled as their own, whichever entry comes first: no group's leave retires it.
    const named = new Set(entries.flatMap((e) => (e.user_id === undefined ? [] : [e.user_id])));
    const add = (target: Target) => {
      if (seen.has(target.userId)) return;
      seen.add(target.userId);
      targets.push(target);
    };
    for (const [i, entry] of entries.entries()) {
      const base = { subAccountId, required: entry.required ?? true, dueAt: entry.end_at === undefined ? undefined : entry.end_at === null ? null : new Date(entry.end_at) };
      if (entry.user_id !== undefined) {
        const user: DirectoryUser | undefined = users.get(entry.user_id);
        if (!user) throw learnerInvalid(i, 'user_id', entry.user_id, 'no such user');
        if (user.deleted_at !== null) throw learnerInvalid(i, 'user_id', entry.user_id, 'the user is deleted');
        add({ ...base, userId: user.id, groupId: null });
      } else if (entry.group_id !== undefined) {
        const group = await this.directory.groupMembers(ctx, entry.group_id);
        if (!group.exists && afterCommit) goneGroups.add(entry.group_id);
        else if (!group.exists) throw learnerInvalid(i, 'group_id', entry.group_id, 'no such group');
        members.set(entry.group_id, new Set(group.user_ids));
        for (const userId of group.user_ids) add({ ...base, userId, groupId: named.has(userId) ? null : entry.group_id });
      }
    }
    return { list: targets, subAccountId, goneGroups, members };
  }
}
