import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import {
  asksForDeleted,
  type ListRegistrationsQuery,
  pageWindow,
  REGISTRATION_CREATED_EVENT,
  REGISTRATION_UPDATED_EVENT,
  type RegistrationView,
  type RequestContext,
  WAITLIST_JOINED_EVENT,
} from '@lms/contracts';
import { badRequest, Database, IdentityDirectory, InjectTenantRepository, notFound, Outbox, type TenantRepository } from '@lms/platform';
import { LiveCourseEnrollment } from '../learners/live-course-enrollment.entity.js';
import { applyDatedFilters, LiveCoursesService } from '../live-courses/live-courses.service.js';
import { Session } from '../sessions/session.entity.js';
import { sessionNotFound } from '../sessions/session.errors.js';
import { Registration } from './registration.entity.js';
import { registrationEventData, SeatRelease } from './seat-release.js';
import { WaitlistPlace } from './waitlist-place.entity.js';

const cannotRegister = (code: string, detail: string) => badRequest(code, detail, [{ field: 'user_id', message: detail }]);
const concluded = (session: Session, field: string) => {
  const detail = `Session ${session.id} is concluded; its check-ins are final.`;
  return badRequest('SESSION_CONCLUDED', detail, [{ field, message: detail }]);
};
const registrationNotFound = (id: number) => notFound('REGISTRATION_NOT_FOUND', `Registration ${id} does not exist.`);

@Injectable()
export class RegistrationsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly courses: LiveCoursesService,
    private readonly directory: IdentityDirectory,
    private readonly seats: SeatRelease,
    @InjectTenantRepository(Session) private readonly sessions: TenantRepository<Session>,
    @InjectTenantRepository(Registration) private readonly registrations: TenantRepository<Registration>,
    @InjectTenantRepository(WaitlistPlace) private readonly waitlist: TenantRepository<WaitlistPlace>,
    @InjectTenantRepository(LiveCourseEnrollment) private readonly enrollments: TenantRepository<LiveCourseEnrollment>,
  ) {}

  /** A live session of a live course of the account. */
  async findSession(ctx: RequestContext, id: number): Promise<Session> {
    return this.visible(ctx, id, await this.sessions.findOne(ctx, { id }));
  }

  /** The session locked for a change of its seats (see SeatRelease). */
  private async lockSession(ctx: RequestContext, id: number): Promise<Session> {
    return this.visible(ctx, id, await this.seats.lockSession(ctx, id));
  }

  /** The session if it is not deleted and its live course is one the caller may see; otherwise a 404. */
  private async visible(ctx: RequestContext, id: number, session: Session | null): Promise<Session> {
    if (!session || session.deletedAt) throw sessionNotFound(id);
    await this.courses.find(ctx, session.liveCourseId).catch(() => Promise.reject(sessionNotFound(id)));
    return session;
  }

  async list(ctx: RequestContext, sessionId: number, query: ListRegistrationsQuery): Promise<[RegistrationView[], number]> {
    const session = await this.findSession(ctx, sessionId);
    const qb = applyDatedFilters(this.registrations.query(ctx, 'a'), 'a', query).andWhere('a.session_id = :sessionId', { sessionId });
    const { skip, take } = pageWindow(query);
    const [rows, total] = await qb.orderBy('a.id', 'ASC').skip(skip).take(take).getManyAndCount();
    return [await this.views(ctx, session, rows, asksForDeleted(query)), total];
  }

  async views(ctx: RequestContext, session: Session, rows: Registration[], deletedAt = false): Promise<RegistrationView[]> {
    const users = await this.directory.users(ctx, rows.map((r) => r.userId));
    return rows.map((row) => {
      const user = users.get(row.userId);
      const view: RegistrationView = {
        id: String(row.id),
        live_course_session_id: String(row.sessionId),
        user_id: String(row.userId),
        name: user?.name ?? `User ${row.userId}`,
        avatar_url: user?.avatar_url ?? null,
        marked_complete_at: row.markedCompleteAt?.toISOString() ?? null,
        start_at: session.startAt?.toISOString() ?? null,
        created_at: row.createdAt.toISOString(),
        updated_at: row.updatedAt.toISOString(),
      };
      if (deletedAt) view.deleted_at = row.deletedAt?.toISOString() ?? null;
      return view;
    });
  }

  /**
   * Takes a seat. The session row is locked while the seats are counted and one is taken, so concurrent
   * registrations queue and the last seat goes to exactly one of them.
   */
  async register(ctx: RequestContext, sessionId: number, userId: number, fromWaitlist: boolean): Promise<void> {
    // Another account's session is a 404 before anything is said about the user.
    const { liveCourseId } = await this.findSession(ctx, sessionId);
    await this.db.transaction(async () => {
      const enrollment = await this.holdEnrollment(ctx, liveCourseId, userId);
      await this.assertUser(ctx, userId);
      const session = await this.lockSession(ctx, sessionId);
      await this.assertOpen(ctx, session, userId, enrollment);
      const place = await this.waitlist.findOne(ctx, { sessionId, userId });
      if (fromWaitlist && !place) throw cannotRegister('NOT_WAITLISTED', `User ${userId} is not on the waitlist of session ${sessionId}.`);
      if (session.seats !== null && (await this.seats.taken(ctx, sessionId)) >= session.seats) {
        throw cannotRegister('SESSION_FULL', `Session ${sessionId} has no seat left; put the user on its waitlist.`);
      }
      if (place) await this.waitlist.delete(ctx, { id: place.id });
      const row = await this.registrations.insert(ctx, { sessionId, userId });
      await this.outbox.add(ctx, REGISTRATION_CREATED_EVENT, registrationEventData(session, row), String(sessionId));
    });
  }

  /** Joins the waitlist; a free seat is taken at once (first come, first served). */
  async joinWaitlist(ctx: RequestContext, sessionId: number, userId: number): Promise<void> {
    const { liveCourseId } = await this.findSession(ctx, sessionId);
    await this.db.transaction(async () => {
      const enrollment = await this.holdEnrollment(ctx, liveCourseId, userId);
      await this.assertUser(ctx, userId);
      const session = await this.lockSession(ctx, sessionId);
      await this.assertOpen(ctx, session, userId, enrollment);
      if (await this.waitlist.findOne(ctx, { sessionId, userId })) throw cannotRegister('ALREADY_WAITLISTED', `User ${userId} is on the waitlist of session ${sessionId} already.`);
      const place = await this.waitlist.insert(ctx, { sessionId, userId });
      await this.outbox.add(ctx, WAITLIST_JOINED_EVENT, { live_course_id: session.liveCourseId, session_id: sessionId, user_id: userId, place_id: Number(place.id) }, String(sessionId));
      await this.seats.promote(ctx, session);
    });
  }

  /**
   * The user's enrollment, held (FOR KEY SHARE) until the transaction ends, taken before the session: a
   * user leaving the course locks the enrollment (FOR UPDATE) before the sessions, so a registration or
   * waitlist place either commits first and is withdrawn, or waits and finds no enrollment. KEY SHARE lets
   * a concluding session (which holds the session) mark the enrollment completed meanwhile. The user is
   * asked for after it, so a deletion whose withdrawal has run is seen.
   */
  private holdEnrollment(ctx: RequestContext, liveCourseId: number, userId: number): Promise<LiveCourseEnrollment | null> {
    return this.enrollments.findOne(ctx, { liveCourseId, userId }, { lock: 'key share' });
  }

  async checkIn(ctx: RequestContext, sessionId: number, id: number, at: string | null): Promise<RegistrationView[]> {
    return this.db.transaction(async () => {
      const session = await this.lockSession(ctx, sessionId);
      const row = await this.registrations.findOne(ctx, { id, sessionId, deletedAt: IsNull() });
      if (!row) throw registrationNotFound(id);
      // Concluding completed the enrollments of the checked-in: a check-in changed after it would disagree with them.
      if (session.concludedAt) throw concluded(session, 'live_course_session_registration.marked_complete_at');
      row.markedCompleteAt = at === null ? null : new Date(at);
      const saved = await this.registrations.save(ctx, row);
      await this.outbox.add(ctx, REGISTRATION_UPDATED_EVENT, registrationEventData(session, saved), String(sessionId));
      // One record, not a list: it has every field of the spec's registration, deleted_at (null) included.
      return this.views(ctx, session, [saved], true);
    });
  }

  async unregister(ctx: RequestContext, sessionId: number, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const session = await this.lockSession(ctx, sessionId);
      const row = await this.registrations.findOne(ctx, { id, sessionId, deletedAt: IsNull() });
      if (!row) throw registrationNotFound(id);
      // What concluding left is the record of who was there (their check-ins completed their enrollments).
      if (session.concludedAt) throw concluded(session, 'id');
      await this.seats.unregister(ctx, session, row);
    });
  }

  private async assertUser(ctx: RequestContext, userId: number): Promise<void> {
    const user = (await this.directory.users(ctx, [userId])).get(userId);
    if (!user || user.deleted_at !== null) throw cannotRegister('USER_UNKNOWN', `User ${userId} does not exist.`);
  }

  private async assertOpen(ctx: RequestContext, session: Session, userId: number, enrollment: LiveCourseEnrollment | null): Promise<void> {
    if (session.parentId !== null) throw cannotRegister('SESSION_IS_PART', `Session ${session.id} is a part; register for session ${session.parentId}.`);
    if (session.concludedAt) throw cannotRegister('SESSION_CONCLUDED', `Session ${session.id} is concluded.`);
    if (!enrollment) {
      throw cannotRegister('NOT_ENROLLED', `User ${userId} is not enrolled in live course ${session.liveCourseId}.`);
    }
    if ((await this.registrations.count(ctx, { sessionId: session.id, userId, deletedAt: IsNull() })) > 0) {
      throw cannotRegister('ALREADY_REGISTERED', `User ${userId} is registered for session ${session.id} already.`);
    }
  }
}
