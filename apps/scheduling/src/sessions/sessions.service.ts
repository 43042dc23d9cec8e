import { Injectable } from '@nestjs/common';
import { Any, IsNull } from 'typeorm';
import {
  type CreateSessionsBody,
  inTimestampRange,
  LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT,
  type ListSessionsQuery,
  type LiveCourseEnrollmentCompletedData,
  pageWindow,
  REGISTRATION_DELETED_EVENT,
  type RequestContext,
  SESSION_CONCLUDED_EVENT,
  SESSION_CREATED_EVENT,
  SESSION_DELETED_EVENT,
  recipientBatches,
  SESSION_PUBLISH_RECIPIENTS_EVENT,
  SESSION_PUBLISHED_EVENT,
  SESSION_UPDATED_EVENT,
  type SessionEventData,
  type SessionPublishedData,
  type SessionPublishRecipientsData,
  type SessionRequest,
  type UpdateSessionBody,
} from '@lms/contracts';
import { Database, IdentityDirectory, InjectTenantRepository, Outbox, type TenantRepository } from '@lms/platform';
import { LiveCourseEnrollment } from '../learners/live-course-enrollment.entity.js';
import { applyDatedFilters, LiveCoursesService } from '../live-courses/live-courses.service.js';
import { Registration } from '../registrations/registration.entity.js';
import { registrationEventData, SeatRelease } from '../registrations/seat-release.js';
import { WaitlistPlace } from '../registrations/waitlist-place.entity.js';
import { WebConferenceDefault } from '../web-conferences/web-conference-default.entity.js';
import { WebConference } from '../web-conferences/web-conference.entity.js';
import { resolveSessionTime } from './local-time.js';
import { Session } from './session.entity.js';
import { invalidSession, sessionNotFound } from './session.errors.js';

const eventData = (s: Session): SessionEventData => ({ id: s.id, live_course_id: s.liveCourseId, parent_id: s.parentId });

@Injectable()
export class SessionsService {
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
    @InjectTenantRepository(WebConference) private readonly conferences: TenantRepository<WebConference>,
    @InjectTenantRepository(WebConferenceDefault) private readonly conferenceDefaults: TenantRepository<WebConferenceDefault>,
  ) {}

  /** A live session of a live course that is not deleted; any other pair of ids is a 404. */
  async find(ctx: RequestContext, courseId: number, id: number): Promise<Session> {
    await this.courses.find(ctx, courseId);
    const session = await this.sessions.findOne(ctx, { id, liveCourseId: courseId });
    return session && !session.deletedAt ? session : Promise.reject(sessionNotFound(id));
  }

  /** The session locked for this transaction (with its course), for every write. */
  async lock(ctx: RequestContext, courseId: number, id: number): Promise<Session> {
    await this.courses.lock(ctx, courseId);
    const session = await this.seats.lockSession(ctx, id);
    return session && session.liveCourseId === courseId && !session.deletedAt ? session : Promise.reject(sessionNotFound(id));
  }

  async page(ctx: RequestContext, courseId: number, query: ListSessionsQuery): Promise<[Session[], number]> {
    await this.courses.find(ctx, courseId);
    const qb = applyDatedFilters(this.sessions.query(ctx, 'a'), 'a', query).andWhere('a.live_course_id = :courseId', { courseId });
    if (query.parent_id !== undefined) qb.andWhere('a.parent_id = :parentId', { parentId: query.parent_id });
    else qb.andWhere('a.parent_id IS NULL');
    const { skip, take } = pageWindow(query);
    return qb.orderBy('a.start_at', 'ASC', 'NULLS LAST').addOrderBy('a.id', 'ASC').skip(skip).take(take).getManyAndCount();
  }

  async create(ctx: RequestContext, courseId: number, body: CreateSessionsBody): Promise<Session[]> {
    const instructors = body.sessions.flatMap((s) => s.instructor_ids ?? []);
    await this.assertInstructors(ctx, instructors);
    return this.db.transaction(async () => {
      await this.courses.lock(ctx, courseId);
      // null, as a session shows it, is no parent.
      const parentId = body.parent_id ?? null;
      if (parentId !== null) {
        const parent = await this.sessions.findOne(ctx, { id: parentId, liveCourseId: courseId });
        if (!parent || parent.deletedAt || parent.parentId !== null) {
          throw invalidSession('SESSION_PARENT_INVALID', `parent_id ${parentId} is not a session of live course ${courseId} (parts have no parts)`, 'parent_id');
        }
        // Its parts concluded with it, and nothing concludes a part on its own.
        if (parent.concludedAt) throw invalidSession('SESSION_CONCLUDED', `Session ${parent.id} is concluded; it takes no more parts.`, 'parent_id');
      }
      const created: Session[] = [];
      // The creator's saved conference details (`default_session=true`) go to each session they make.
      const defaults = await this.conferenceDefaults.findOne(ctx, { userId: ctx.userId });
      for (const [i, input] of body.sessions.entries()) {
        const fields = this.fieldsOf(input, body.timezone, `sessions[${i}]`);
        this.assertOrder({ startAt: fields.startAt ?? null, endAt: fields.endAt ?? null }, `sessions[${i}]`);
        const session = await this.sessions.insert(ctx, { instructorIds: [], ...fields, liveCourseId: courseId, parentId });
        if (defaults) {
          const { accountId: _account, userId: _user, createdAt: _c, updatedAt: _u, ...details } = defaults;
          await this.conferences.insert(ctx, { ...details, sessionId: session.id });
        }
        await this.outbox.add(ctx, SESSION_CREATED_EVENT, eventData(session), String(session.id));
        created.push(session);
      }
      return created;
    });
  }

  async update(ctx: RequestContext, courseId: number, id: number, body: UpdateSessionBody): Promise<Session> {
    // The element's `timezone` alone is a change (the zone shown); the body's only places the times given.
    const given = Object.entries(body.session).filter(([, value]) => value !== undefined);
    if (given.length === 0) throw invalidSession('SESSION_NO_CHANGES', 'session must name at least one field to change', 'session');
    await this.assertInstructors(ctx, body.session.instructor_ids ?? []);
    return this.db.transaction(async () => {
      const session = await this.lock(ctx, courseId, id);
      const fields = this.fieldsOf(body.session, body.timezone ?? session.timezone ?? undefined, 'session');
      if (fields.seats !== undefined && fields.seats !== null && session.parentId === null) {
        const taken = await this.seats.taken(ctx, session.id);
        if (fields.seats < taken) throw invalidSession('SESSION_SEATS_TAKEN', `seats cannot go below the ${taken} registered users`, 'session.seats');
      }
      Object.assign(session, fields);
      this.assertOrder(session, 'session');
      const saved = await this.sessions.save(ctx, session);
      await this.outbox.add(ctx, SESSION_UPDATED_EVENT, eventData(saved), String(saved.id));
      // More seats: the waitlist moves up.
      await this.seats.promote(ctx, saved);
      return saved;
    });
  }

  /** Soft delete of the session and its parts; its waitlist goes, its registrations stay as history. */
  async delete(ctx: RequestContext, courseId: number, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const session = await this.lock(ctx, courseId, id);
      await this.sessions.update(ctx, { id }, { deletedAt: () => 'now()', updatedAt: () => 'now()' });
      await this.sessions.update(ctx, { parentId: id, deletedAt: IsNull() }, { deletedAt: () => 'now()', updatedAt: () => 'now()' });
      await this.waitlist.delete(ctx, { sessionId: id });
      await this.outbox.add(ctx, SESSION_DELETED_EVENT, eventData(session), String(id));
    });
  }

  /**
   * Irreversible. Registrations without a check-in are unregistered; checked-in users complete their
   * live course enrollment (once: a later session does not complete it again). The waitlist goes.
   */
  async conclude(ctx: RequestContext, courseId: number, id: number): Promise<Session> {
    return this.db.transaction(async () => {
      const session = await this.lock(ctx, courseId, id);
      if (session.concludedAt) throw invalidSession('SESSION_CONCLUDED', `Session ${id} is concluded already.`);
      if (session.parentId !== null) throw invalidSession('SESSION_IS_PART', `Session ${id} is a part; conclude its session ${session.parentId}.`);
      if (!session.startAt || session.startAt.getTime() > Date.now()) throw invalidSession('SESSION_NOT_STARTED', `Session ${id} has not started yet.`);
      const now = new Date();
      // A statement for each step, not for each registration: a session of thousands concludes within its request.
      const registered = await this.registrations.find(ctx, { where: { sessionId: id, deletedAt: IsNull() }, order: { id: 'ASC' } });
      const absent = registered.filter((row) => !row.markedCompleteAt);
      if (absent.length > 0) {
        await this.registrations.update(ctx, { id: Any(absent.map((row) => row.id)) }, { deletedAt: now, updatedAt: now });
        await this.outbox.addAll(ctx, REGISTRATION_DELETED_EVENT, absent.map((row) => ({ data: registrationEventData(session, row), subject: String(id) })));
      }
      const present = registered.filter((row) => row.markedCompleteAt).map((row) => row.userId);
      // FOR NO KEY UPDATE, not FOR UPDATE: a registration holds enrollments (FOR KEY SHARE) before it waits for
      // this session, so a stronger lock here could deadlock with it. Leaving the course waits on the course lock.
      const completing = present.length === 0 ? [] : (await this.enrollments.find(ctx, { where: { liveCourseId: courseId, userId: Any(present), completedAt: IsNull() }, order: { id: 'ASC' }, lock: 'no key update' }));
      if (completing.length > 0) {
        await this.enrollments.update(ctx, { id: Any(completing.map((e) => e.id)) }, { completedAt: now, updatedAt: now });
        const completed = completing.map((enrollment): { data: LiveCourseEnrollmentCompletedData; subject: string } => ({
          data: { user_id: enrollment.userId, enrollment_id: enrollment.id, completed_at: now.toISOString(), due_at: null, live_course_id: courseId },
          subject: String(enrollment.id),
        }));
        await this.outbox.addAll(ctx, LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT, completed);
      }
      await this.waitlist.delete(ctx, { sessionId: id });
      await this.sessions.update(ctx, { id }, { concludedAt: now, updatedAt: now });
      await this.sessions.update(ctx, { parentId: id, deletedAt: IsNull() }, { concludedAt: now, updatedAt: now });
      await this.outbox.add(ctx, SESSION_CONCLUDED_EVENT, eventData(session), String(id));
      return this.find(ctx, courseId, id);
    });
  }

  /** Publishes once, notifying the registered users; publishing again changes nothing. */
  async publish(ctx: RequestContext, courseId: number, id: number): Promise<Session> {
    return this.db.transaction(async () => {
      const session = await this.lock(ctx, courseId, id);
      if (session.publishedAt) return session;
      if (session.parentId !== null) throw invalidSession('SESSION_IS_PART', `Session ${id} is a part; publish its session ${session.parentId}.`);
      if (session.concludedAt) throw invalidSession('SESSION_CONCLUDED', `Session ${id} is concluded.`);
      if (!session.startAt) throw invalidSession('SESSION_UNSCHEDULED', `Session ${id} has no start_at; schedule it first.`);
      const now = new Date();
      await this.sessions.update(ctx, { id }, { publishedAt: now, updatedAt: now });
      const recipients = (await this.registrations.find(ctx, { where: { sessionId: id, deletedAt: IsNull() }, order: { id: 'ASC' } })).map((r) => r.userId);
      // In batches, as a course's publish: an event stays small however many are registered.
      const { first, rest } = recipientBatches(recipients);
      const data: SessionPublishedData = { ...eventData(session), recipients: first, recipients_count: recipients.length };
      await this.outbox.add(ctx, SESSION_PUBLISHED_EVENT, data, String(id));
      for (const { batch, recipients: some } of rest) {
        const more: SessionPublishRecipientsData = { id, live_course_id: session.liveCourseId, batch, recipients: some };
        await this.outbox.add(ctx, SESSION_PUBLISH_RECIPIENTS_EVENT, more, String(id));
      }
      return this.find(ctx, courseId, id);
    });
  }

  /** A copy with the same times, location, seats, notes, instructors, parts and web conference; no registrations, unpublished. */
  async clone(ctx: RequestContext, courseId: number, id: number): Promise<Session> {
    return this.db.transaction(async () => {
      const source = await this.lock(ctx, courseId, id);
      // A part's copy is a part of the same session, which must still be open (see create).
      if (source.parentId !== null && (await this.sessions.findOne(ctx, { id: source.parentId }))?.concludedAt) {
        throw invalidSession('SESSION_CONCLUDED', `Session ${source.parentId} is concluded; it takes no more parts.`);
      }
      const copy = await this.copyOf(ctx, source, source.parentId);
      if (source.parentId === null) {
        for (const part of await this.sessions.find(ctx, { where: { parentId: id, deletedAt: IsNull() }, order: { id: 'ASC' } })) await this.copyOf(ctx, part, copy.id);
      }
      return copy;
    });
  }

  private async copyOf(ctx: RequestContext, source: Session, parentId: number | null): Promise<Session> {
    const { startAt, endAt, location, seats, notes, timezone, instructorIds, liveCourseId } = source;
    const copy = await this.sessions.insert(ctx, { startAt, endAt, location, seats, notes, timezone, instructorIds, liveCourseId, parentId });
    const conference = await this.conferences.findOne(ctx, { sessionId: source.id });
    if (conference) {
      const { id: _id, accountId: _account, sessionId: _session, createdAt: _c, updatedAt: _u, ...details } = conference;
      await this.conferences.insert(ctx, { ...details, sessionId: copy.id });
    }
    await this.outbox.add(ctx, SESSION_CREATED_EVENT, eventData(copy), String(copy.id));
    return copy;
  }

  private fieldsOf(input: SessionRequest, bodyZone: string | undefined, at: string): Partial<Session> {
    const zone = input.timezone ?? bodyZone;
    const values: Partial<Session> = {};
    if (input.start_at !== undefined) values.startAt = input.start_at === null ? null : this.time(input.start_at, zone, `${at}.start_at`);
    if (input.end_at !== undefined) values.endAt = input.end_at === null ? null : this.time(input.end_at, zone, `${at}.end_at`);
    if (input.location !== undefined) values.location = input.location;
    if (input.seats !== undefined) values.seats = input.seats;
    if (input.notes !== undefined) values.notes = input.notes;
    if (zone !== undefined) values.timezone = zone;
    if (input.instructor_ids !== undefined) values.instructorIds = input.instructor_ids;
    return values;
  }

  private time(text: string, zone: string | undefined, field: string): Date {
    const at = resolveSessionTime(text, zone);
    if (Number.isNaN(at.getTime())) throw invalidSession('SESSION_TIME_INVALID', `${field} is not a valid date-time`, field);
    // As every date-time of the API: a wall time in year 0000, or one its zone carries past 9999, is no RFC 3339 answer.
    if (!inTimestampRange(at.getTime())) throw invalidSession('SESSION_TIME_INVALID', `${field} must lie in the years 0001 to 9999 (UTC)`, field);
    return at;
  }

  private assertOrder(session: Pick<Session, 'startAt' | 'endAt'>, at: string): void {
    if (session.startAt && session.endAt && session.endAt < session.startAt) throw invalidSession('SESSION_ENDS_BEFORE_START', `${at}.end_at is before its start_at`, `${at}.end_at`);
  }

  private async assertInstructors(ctx: RequestContext, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const users = await this.directory.users(ctx, ids);
    const unknown = ids.find((id) => !users.get(id) || users.get(id)?.deleted_at !== null);
    if (unknown !== undefined) throw invalidSession('SESSION_INSTRUCTOR_INVALID', `instructor ${unknown} is not a user of the account`, 'instructor_ids');
  }
}
