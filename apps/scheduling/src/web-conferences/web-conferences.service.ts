import { Injectable } from '@nestjs/common';
import { type ListWebConferencesQuery, pageWindow, type RequestContext, type WebConferenceRequest, type WebConferenceView } from '@lms/contracts';
import { Database, InjectTenantRepository, notFound, type TenantRepository, type TenantScope, unprocessable } from '@lms/platform';
import { LiveCoursesService } from '../live-courses/live-courses.service.js';
import { Session } from '../sessions/session.entity.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { WebConferenceDefault } from './web-conference-default.entity.js';
import { type ConferenceDetails, WebConference } from './web-conference.entity.js';

type Details = Pick<ConferenceDetails, 'provider' | 'otherProvider' | 'meetingUrl' | 'accessCode' | 'phone' | 'hostKey' | 'password' | 'registrationLink'>;

const FIELDS: [keyof WebConferenceRequest, keyof Details][] = [
  ['provider', 'provider'],
  ['other_provider', 'otherProvider'],
  ['meeting_url', 'meetingUrl'],
  ['access_code', 'accessCode'],
  ['phone', 'phone'],
  ['host_key', 'hostKey'],
  ['password', 'password'],
  ['registration_link', 'registrationLink'],
];

const conferenceNotFound = (sessionId: number) => notFound('WEB_CONFERENCE_NOT_FOUND', `Session ${sessionId} has no web conference.`);

export function toWebConferenceView(c: Details & { id?: number; sessionId?: number }): WebConferenceView {
  return {
    id: c.id ?? null,
    live_course_session_id: c.sessionId ?? null,
    provider: c.provider,
    other_provider: c.otherProvider,
    meeting_url: c.meetingUrl,
    access_code: c.accessCode,
    phone: c.phone,
    host_key: c.hostKey,
    password: c.password,
    registration_link: c.registrationLink,
  };
}

const detailsOf = (c: Details): Details => Object.fromEntries(FIELDS.map(([, key]) => [key, c[key]])) as unknown as Details;

/** Web conferences of sessions, and each author's saved defaults (issue 10; docs/scheduling.md). */
@Injectable()
export class WebConferencesService {
  constructor(
    private readonly db: Database,
    private readonly courses: LiveCoursesService,
    private readonly sessions: SessionsService,
    @InjectTenantRepository(WebConference) private readonly conferences: TenantRepository<WebConference>,
    @InjectTenantRepository(WebConferenceDefault) private readonly defaults: TenantRepository<WebConferenceDefault>,
    @InjectTenantRepository(Session) private readonly sessionRows: TenantRepository<Session>,
  ) {}

  /** The account's conferences (of live sessions), by live course; or the caller's defaults. */
  async list(ctx: RequestContext, query: ListWebConferencesQuery, courseId?: number): Promise<[WebConferenceView[], number]> {
    if (courseId !== undefined) await this.courses.find(ctx, courseId);
    if (query.default_session) {
      const mine = await this.defaults.findOne(ctx, { userId: ctx.userId });
      return [mine ? [toWebConferenceView(mine)] : [], mine ? 1 : 0];
    }
    const course = courseId ?? query.live_course_id;
    // Live sessions of live courses only: a deleted course's sessions keep their rows (and conferences), and
    // every other route answers 404 for them. One query, so no list of session ids however many there are.
    const qb = this.conferences
      .query(ctx, 'c')
      .andWhere(
        `EXISTS (SELECT 1 FROM "${this.db.schema}".sessions s JOIN "${this.db.schema}".live_courses lc ON lc.account_id = s.account_id AND lc.id = s.live_course_id
          WHERE s.account_id = c.account_id AND s.id = c.session_id AND s.deleted_at IS NULL AND lc.deleted_at IS NULL${course !== undefined ? ' AND s.live_course_id = :course' : ''})`,
        { course },
      );
    const { skip, take } = pageWindow(query);
    const [rows, total] = await qb.orderBy('c.id', 'ASC').skip(skip).take(take).getManyAndCount();
    return [rows.map(toWebConferenceView), total];
  }

  async show(ctx: RequestContext, courseId: number, sessionId: number): Promise<WebConference> {
    await this.liveSession(ctx, courseId, sessionId);
    return (await this.conferences.findOne(ctx, { sessionId })) ?? Promise.reject(conferenceNotFound(sessionId));
  }

  /**
   * PATCH and PUT: the given fields over the session's conference (made when missing). A conference must
   * name its provider, and `other_provider` when that is `Other` (422). `default_session` also saves the
   * result as the caller's defaults; `apply_all` copies it to every other live session of the course.
   */
  async save(ctx: RequestContext, courseId: number, sessionId: number, input: WebConferenceRequest): Promise<WebConference> {
    return this.db.transaction(async () => {
      await this.sessions.lock(ctx, courseId, sessionId);
      const existing = await this.conferences.findOne(ctx, { sessionId });
      const details = { ...(existing ? detailsOf(existing) : {}) } as Partial<Details>;
      for (const [field, key] of FIELDS) if (input[field] !== undefined) (details as Record<string, unknown>)[key] = input[field];
      if (!details.provider) throw unprocessable('WEB_CONFERENCE_INVALID', 'provider is required', [{ field: 'web_conference.provider', message: 'provider is required' }]);
      if (details.provider === 'Other' && !details.otherProvider?.trim()) {
        throw unprocessable('WEB_CONFERENCE_INVALID', 'other_provider is required when provider is Other', [{ field: 'web_conference.other_provider', message: 'required when provider is Other' }]);
      }
      const complete = { ...FIELDS.reduce((all, [, key]) => ({ ...all, [key]: null }), {}), ...details } as Details;
      const saved = await this.upsert(ctx, sessionId, complete);
      if (input.default_session) {
        // Insert or, when the caller has defaults (or is saving their first ones in another request just
        // now: the insert waits for it), update: never a key conflict between two saves of one author.
        const [created] = await this.defaults.insertNew(ctx, [{ ...complete, userId: ctx.userId }], ['user_id']);
        if (!created) await this.defaults.update(ctx, { userId: ctx.userId }, complete);
      }
      if (input.apply_all) await this.applyToOthers(ctx, courseId, sessionId, complete);
      return saved;
    });
  }

  async delete(ctx: RequestContext, courseId: number, sessionId: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.sessions.lock(ctx, courseId, sessionId);
      const existing = await this.conferences.findOne(ctx, { sessionId });
      if (!existing) throw conferenceNotFound(sessionId);
      await this.conferences.delete(ctx, { id: existing.id });
    });
  }

  /**
   * `apply_all`: the conference of every other live session of the course becomes `details`, made where missing,
   * in one statement whatever the course's number of sessions (two a session took seconds past a thousand).
   */
  private async applyToOthers(scope: TenantScope, courseId: number, sessionId: number, details: Details): Promise<void> {
    const metadata = this.db.manager.connection.getMetadata(WebConference);
    const columns = FIELDS.map(([, key]) => metadata.findColumnWithPropertyName(key)!.databaseName);
    await this.db.manager.query(
      `INSERT INTO scheduling.web_conferences (account_id, session_id, ${columns.join(', ')})
       SELECT s.account_id, s.id, ${columns.map((_, i) => `$${i + 4}::text`).join(', ')} FROM scheduling.sessions s
        WHERE s.account_id = $1 AND s.live_course_id = $2 AND s.id <> $3 AND s.deleted_at IS NULL
        ORDER BY s.id
       ON CONFLICT (account_id, session_id) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, updated_at = now()`,
      [scope.accountId, courseId, sessionId, ...FIELDS.map(([, key]) => details[key])],
    );
  }

  private async upsert(scope: TenantScope, sessionId: number, details: Details): Promise<WebConference> {
    const existing = await this.conferences.findOne(scope, { sessionId });
    if (!existing) return this.conferences.insert(scope, { ...details, sessionId });
    Object.assign(existing, details);
    return this.conferences.save(scope, existing);
  }

  private async liveSession(ctx: RequestContext, courseId: number, sessionId: number): Promise<void> {
    await this.courses.find(ctx, courseId);
    const session = await this.sessionRows.findOne(ctx, { id: sessionId, liveCourseId: courseId });
    if (!session || session.deletedAt) throw notFound('SESSION_NOT_FOUND', `Live course ${courseId} has no session ${sessionId}.`);
  }
}
