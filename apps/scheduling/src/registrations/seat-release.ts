import { Injectable } from '@nestjs/common';
import { Any, In, IsNull } from 'typeorm';
import {
  LIVE_COURSE_ENROLLMENT_REMOVED_EVENT,
  type LiveCourseEnrollmentEventData,
  type RequestContext,
  REGISTRATION_DELETED_EVENT,
  type RegistrationEventData,
  WAITLIST_PROMOTED_EVENT,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, queryResult, type TenantRepository, type TenantScope } from '@lms/platform';
import { LiveCourseEnrollment } from '../learners/live-course-enrollment.entity.js';
import { LiveCourse } from '../live-courses/live-course.entity.js';
import { Session } from '../sessions/session.entity.js';
import { Registration } from './registration.entity.js';
import { WaitlistPlace } from './waitlist-place.entity.js';

export const registrationEventData = (session: Pick<Session, 'id' | 'liveCourseId'>, row: Pick<Registration, 'id' | 'userId'>): RegistrationEventData => ({
  live_course_id: session.liveCourseId,
  session_id: session.id,
  registration_id: row.id,
  user_id: row.userId,
});

export const enrollmentEventData = (row: LiveCourseEnrollment): LiveCourseEnrollmentEventData => ({
  live_course_id: row.liveCourseId,
  enrollment_id: row.id,
  user_id: row.userId,
});

/** Waitlist places a promotion takes in one statement. */
const PROMOTION_BATCH = 5_000;

/**
 * Seats and the waitlist. Every change of a session's registrations runs with the session row locked
 * (FOR UPDATE), so counting the taken seats and taking one is a single step: seats are never oversold.
 * A freed seat goes to the oldest waitlist place of a user still enrolled (first come, first served).
 */
@Injectable()
export class SeatRelease {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(Session) private readonly sessions: TenantRepository<Session>,
    @InjectTenantRepository(Registration) private readonly registrations: TenantRepository<Registration>,
    @InjectTenantRepository(WaitlistPlace) private readonly waitlist: TenantRepository<WaitlistPlace>,
    @InjectTenantRepository(LiveCourseEnrollment) private readonly enrollments: TenantRepository<LiveCourseEnrollment>,
    @InjectTenantRepository(LiveCourse) private readonly courses: TenantRepository<LiveCourse>,
  ) {}

  /** Locks a session row for the transaction (parts included); null when unknown. */
  lockSession(scope: TenantScope, id: number): Promise<Session | null> {
    return this.sessions.findOne(scope, { id }, { lock: 'update' });
  }

  taken(scope: TenantScope, sessionId: number): Promise<number> {
    return this.registrations.count(scope, { sessionId, deletedAt: IsNull() });
  }

  /**
   * Fills free seats of a locked, open session from its waitlist, first come, first served; answers how many
   * were promoted. The oldest places, as many as there are free seats (PROMOTION_BATCH at most), go in one
   * statement; of those deleted (one a withdrawal deleted meanwhile is not), the users still enrolled take a
   * seat each, by one insert and one insert of their events: a waitlist of 20,000 moves up within its request.
   * No place goes that the one-by-one promotion would have kept: a batch holds no more enrolled users than seats.
   */
  async promote(ctx: TenantScope, session: Session): Promise<number> {
    let promoted = 0;
    if (session.concludedAt || session.deletedAt) return promoted;
    let free = session.seats === null ? Number.POSITIVE_INFINITY : session.seats - (await this.taken(ctx, session.id));
    while (free > 0) {
      const next = await this.waitlist.find(ctx, { where: { sessionId: session.id }, order: { id: 'ASC' }, take: Math.min(free, PROMOTION_BATCH) });
      if (next.length === 0) break;
      // Gone meanwhile (its user withdrew from the course, deleted): the place was read before that committed.
      const { rows: deleted } = queryResult<{ id: string }>(
        await this.db.manager.query('DELETE FROM scheduling.waitlist_places WHERE account_id = $1 AND id = ANY($2::bigint[]) RETURNING id', [ctx.accountId, next.map((p) => p.id)]),
      );
      const gone = new Set(deleted.map((d) => String(d.id)));
      const taken = next.filter((p) => gone.has(String(p.id)));
      if (taken.length === 0) continue;
      const enrolled = new Set((await this.enrollments.find(ctx, { where: { liveCourseId: session.liveCourseId, userId: In(taken.map((p) => p.userId)) } })).map((e) => e.userId));
      const seated = taken.filter((p) => enrolled.has(p.userId));
      if (seated.length === 0) continue;
      const rows = (await this.registrations.insertNew(ctx, seated.map((p) => ({ sessionId: session.id, userId: p.userId })), ['id', 'user_id'])) as { id: number; user_id: number }[];
      // A user registered already: the one-by-one insert failed on the unique key, and so does this.
      if (rows.length !== seated.length) throw new Error(`promoting the waitlist of session ${session.id}: ${seated.length - rows.length} of its users are registered already`);
      const ids = new Map(rows.map((r) => [r.user_id, r.id]));
      await this.outbox.addAll(ctx, WAITLIST_PROMOTED_EVENT, seated.map((p) => ({ data: registrationEventData(session, { id: ids.get(p.userId)!, userId: p.userId }), subject: String(session.id) })));
      promoted += seated.length;
      free -= seated.length;
    }
    return promoted;
  }

  /** Unregisters one live registration (soft), read in its locked session, then gives the seat to the waitlist. */
  async unregister(ctx: TenantScope, session: Session, row: Registration): Promise<void> {
    await this.registrations.update(ctx, { id: row.id }, { deletedAt: () => 'now()', updatedAt: () => 'now()' });
    await this.outbox.add(ctx, REGISTRATION_DELETED_EVENT, registrationEventData(session, row), String(session.id));
    await this.promote(ctx, session);
  }

  /**
   * A user leaves every session of a course (enrollment removed, user deleted): registrations and waitlist
   * places go, but for concluded sessions, whose check-ins are final (the record of who was there). The caller
   * has locked the course, then the user's enrollment (FOR UPDATE): registering holds the enrollment before the
   * session, so a registration not committed yet is waited for, never missed. The sessions are locked in id
   * order, then their registrations go in one statement and the freed seats to the waitlists that have someone.
   */
  withdrawFromCourse(ctx: TenantScope | RequestContext, courseId: number, userId: number): Promise<void> {
    return this.withdrawFromCourses(ctx, [courseId], userId);
  }

  /** `withdrawFromCourse` from several courses at once: the caller has locked them all, then the user's enrollments in them. */
  async withdrawFromCourses(ctx: TenantScope | RequestContext, courseIds: number[], userId: number): Promise<void> {
    if (courseIds.length === 0) return;
    const sessionIds = (await this.sessions.find(ctx, { where: { liveCourseId: Any(courseIds), concludedAt: IsNull() }, order: { id: 'ASC' } })).map((s) => s.id);
    if (sessionIds.length === 0) return;
    await this.waitlist.delete(ctx, { sessionId: Any(sessionIds), userId });
    const registeredIn = [...new Set((await this.registrations.find(ctx, { where: { sessionId: Any(sessionIds), userId, deletedAt: IsNull() } })).map((r) => r.sessionId))];
    if (registeredIn.length === 0) return;
    const sessions = await this.sessions.find(ctx, { where: { id: Any(registeredIn) }, order: { id: 'ASC' }, lock: 'update' });
    // Read again under the session locks: one unregistered meanwhile is left as it is.
    const rows = await this.registrations.find(ctx, { where: { sessionId: Any(registeredIn), userId, deletedAt: IsNull() }, order: { id: 'ASC' } });
    if (rows.length === 0) return;
    await this.registrations.update(ctx, { id: Any(rows.map((r) => r.id)) }, { deletedAt: () => 'now()', updatedAt: () => 'now()' });
    const byId = new Map(sessions.map((s) => [s.id, s]));
    await this.outbox.addAll(ctx, REGISTRATION_DELETED_EVENT, rows.map((row) => ({ data: registrationEventData(byId.get(row.sessionId)!, row), subject: String(row.sessionId) })));
    const waitlisted: { session_id: number }[] = await this.waitlist.query(ctx, 'w').select('DISTINCT w.session_id', 'session_id').andWhere('w.session_id = ANY(:ids)', { ids: registeredIn }).getRawMany();
    const waiting = new Set(waitlisted.map((w) => Number(w.session_id)));
    if (waiting.size === 0) return;
    // A deleted course's sessions are not live (every route answers 404 for them): a user deleted leaves them, but
    // their seats go to nobody, and nobody is told of one. Every other caller has found its course live.
    const live = new Set((await this.courses.find(ctx, { where: { id: Any(courseIds), deletedAt: IsNull() } })).map((c) => c.id));
    for (const session of sessions) if (waiting.has(session.id) && live.has(session.liveCourseId)) await this.promote(ctx, session);
  }

  /**
   * The user leaves the course (removed from it, or deleted): their sessions first, then the enrollment.
   * The caller has locked the course, then the enrollment, as `withdrawFromCourse` needs.
   */
  removeEnrollment(ctx: TenantScope | RequestContext, row: LiveCourseEnrollment): Promise<void> {
    return this.leaveCourses(ctx, row.userId, [row.liveCourseId], [row]);
  }

  /**
   * A user leaves these courses (deleted): their sessions in all of them first, then `enrollments` (theirs, of
   * these courses) go by one delete and their events by one insert, in the order given. The caller has locked
   * the courses, then the user's enrollments in them, as `withdrawFromCourses` needs.
   */
  async leaveCourses(ctx: TenantScope | RequestContext, userId: number, courseIds: number[], enrollments: LiveCourseEnrollment[]): Promise<void> {
    await this.withdrawFromCourses(ctx, courseIds, userId);
    if (enrollments.length === 0) return;
    await this.enrollments.delete(ctx, { id: Any(enrollments.map((e) => e.id)) });
    await this.outbox.addAll(ctx, LIVE_COURSE_ENROLLMENT_REMOVED_EVENT, enrollments.map((row) => ({ data: enrollmentEventData(row), subject: String(row.liveCourseId) })));
  }
}
