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
import { InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { LiveCourseEnrollment } from '../learners/live-course-enrollment.entity.js';
import { Session } from '../sessions/session.entity.js';
import { Registration } from './registration.entity.js';
import { WaitlistPlace } from './waitlist-place.entity.js';

export const registrationEventData = (session: Pick<Session, 'id' | 'liveCourseId'>, row: Registration): RegistrationEventData => ({
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

/**
 * Seats and the waitlist. Every change of a session's registrations runs with the session row locked
 * (FOR UPDATE), so counting the taken seats and taking one is a single step: seats are never oversold.
 * A freed seat goes to the oldest waitlist place of a user still enrolled (first come, first served).
 */
@Injectable()
export class SeatRelease {
  constructor(
    private readonly outbox: Outbox,
    @InjectTenantRepository(Session) private readonly sessions: TenantRepository<Session>,
    @InjectTenantRepository(Registration) private readonly registrations: TenantRepository<Registration>,
    @InjectTenantRepository(WaitlistPlace) private readonly waitlist: TenantRepository<WaitlistPlace>,
    @InjectTenantRepository(LiveCourseEnrollment) private readonly enrollments: TenantRepository<LiveCourseEnrollment>,
  ) {}

  /** Locks a session row for the transaction (parts included); null when unknown. */
  lockSession(scope: TenantScope, id: number): Promise<Session | null> {
    return this.sessions.findOne(scope, { id }, { lock: 'update' });
  }

  taken(scope: TenantScope, sessionId: number): Promise<number> {
    return this.registrations.count(scope, { sessionId, deletedAt: IsNull() });
  }

  /** Fills free seats of a locked, open session from its waitlist; answers the promoted registrations. */
  async promote(ctx: TenantScope, session: Session): Promise<Registration[]> {
    const promoted: Registration[] = [];
    if (session.concludedAt || session.deletedAt) return promoted;
    let free = session.seats === null ? Number.POSITIVE_INFINITY : session.seats - (await this.taken(ctx, session.id));
    while (free > 0) {
      const [next] = await this.waitlist.find(ctx, { where: { sessionId: session.id }, order: { id: 'ASC' }, take: 1 });
      if (!next) break;
      // Gone meanwhile (its user withdrew from the course, deleted): the place was read before that committed.
      if ((await this.waitlist.delete(ctx, { id: next.id })) === 0) continue;
      const enrolled = await this.enrollments.count(ctx, { liveCourseId: session.liveCourseId, userId: next.userId });
      if (enrolled === 0) continue;
      const row = await this.registrations.insert(ctx, { sessionId: session.id, userId: next.userId });
      await this.outbox.add(ctx, WAITLIST_PROMOTED_EVENT, registrationEventData(session, row), String(session.id));
      promoted.push(row);
      free -= 1;
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
  async withdrawFromCourse(ctx: TenantScope | RequestContext, courseId: number, userId: number): Promise<void> {
    const sessionIds = (await this.sessions.find(ctx, { where: { liveCourseId: courseId, concludedAt: IsNull() }, order: { id: 'ASC' } })).map((s) => s.id);
    if (sessionIds.length === 0) return;
    await this.waitlist.delete(ctx, { sessionId: In(sessionIds), userId });
    const registeredIn = [...new Set((await this.registrations.find(ctx, { where: { sessionId: In(sessionIds), userId, deletedAt: IsNull() } })).map((r) => r.sessionId))];
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
    for (const session of sessions) if (waiting.has(session.id)) await this.promote(ctx, session);
  }

  /**
   * The user leaves the course (removed from it, or deleted): their sessions first, then the enrollment.
   * The caller has locked the course, then the enrollment, as `withdrawFromCourse` needs.
   */
  async removeEnrollment(ctx: TenantScope | RequestContext, row: LiveCourseEnrollment): Promise<void> {
    await this.withdrawFromCourse(ctx, row.liveCourseId, row.userId);
    await this.enrollments.delete(ctx, { id: row.id });
    await this.outbox.add(ctx, LIVE_COURSE_ENROLLMENT_REMOVED_EVENT, enrollmentEventData(row), String(row.liveCourseId));
  }
}
