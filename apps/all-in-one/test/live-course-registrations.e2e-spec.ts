import { eventually, holdingLock, type TestUser } from '@lms/testing';
import { LIVE_COURSES, REGISTRATIONS_OF, type SchedulingFixture, SESSIONS_OF, startSchedulingFixture } from './scheduling-fixture.js';

describe('live course session registrations and waitlist, end to end', () => {
  let f: SchedulingFixture;
  const waitlistOf = (sessionId: number) => `/api/author/live_course_sessions/${sessionId}/waitlist_enrollments`;
  const registeredIds = async (sessionId: number) => (await f.admin.get(`${REGISTRATIONS_OF(sessionId)}?per_page=1000`)).body.registrations.map((r: { user_id: string }) => Number(r.user_id));

  beforeAll(async () => {
    f = await startSchedulingFixture('e2e-live-course-registrations');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('registers (204), lists, checks in with PATCH and PUT, unregisters (204) and refuses bad registrations with 400', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { start_at: '2031-03-03T09:00:00Z', seats: 5 });
    const [a, b] = await f.enrolledLearners(course.id, 2);
    expect((await f.author.post(REGISTRATIONS_OF(session.id), { user_id: a.userId })).status).toBe(204);
    const list = await f.admin.get(REGISTRATIONS_OF(session.id));
    expect(list.status).toBe(200);
    const [registration] = list.body.registrations;
    expect(registration).toEqual({
      id: expect.stringMatching(/^\d+$/),
      live_course_session_id: String(session.id),
      user_id: String(a.userId),
      name: expect.any(String),
      avatar_url: null,
      marked_complete_at: null,
      start_at: '2031-03-03T09:00:00.000Z',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // The spec: deleted_at only in lists that ask for deleted records.
    expect((await f.admin.get(`${REGISTRATIONS_OF(session.id)}?with_deleted=true`)).body.registrations).toEqual([{ ...registration, deleted_at: null }]);
    const notEnrolled = await f.t.factory.user(f.cast.accountId, ['learner']);
    for (const [body, code] of [
      [{ user_id: a.userId }, 'ALREADY_REGISTERED'],
      [{ user_id: 999999 }, 'USER_UNKNOWN'],
      [{ user_id: f.cast.stranger.userId }, 'USER_UNKNOWN'],
      [{ user_id: notEnrolled.userId }, 'NOT_ENROLLED'],
      [{ user_id: b.userId, from_waitlist: true }, 'NOT_WAITLISTED'],
    ] as const) {
      const res = await f.admin.post(REGISTRATIONS_OF(session.id), body);
      expect([body, res.status, res.body.code]).toEqual([body, 400, code]);
    }
    for (const body of [{}, { user_id: 'x' }, { user_id: 1, extra: 1 }]) expect((await f.admin.post(REGISTRATIONS_OF(session.id), body)).status).toBe(400);
    const checkedIn = await f.admin.patch(`${REGISTRATIONS_OF(session.id)}/${registration.id}`, { live_course_session_registration: { marked_complete_at: '2031-03-03T09:05:00Z' } });
    expect(checkedIn.status).toBe(200);
    expect(checkedIn.body.registrations[0].marked_complete_at).toBe('2031-03-03T09:05:00.000Z');
    // One record, so every field of the spec's registration, deleted_at included.
    expect(checkedIn.body.registrations[0]).toMatchObject({ deleted_at: null });
    // ISO 8601 as scripts write it: Python's isoformat() (no offset: UTC), `+0000`, Ruby's Time#to_s.
    for (const [sent, read] of [
      ['2031-03-03T09:05:00.123456', '2031-03-03T09:05:00.123Z'],
      ['2031-03-03T10:05:00+0100', '2031-03-03T09:05:00.000Z'],
      ['2031-03-03 09:05:00 UTC', '2031-03-03T09:05:00.000Z'],
    ]) {
      const res = await f.admin.patch(`${REGISTRATIONS_OF(session.id)}/${registration.id}`, { live_course_session_registration: { marked_complete_at: sent } });
      expect([sent, res.status, res.body.registrations?.[0].marked_complete_at]).toEqual([sent, 200, read]);
    }
    const synced = await f.admin.get(`${REGISTRATIONS_OF(session.id)}?updated_after=${encodeURIComponent('2000-01-01T00:00:00')}`);
    expect(synced.body.registrations.map((r: { id: string }) => r.id)).toEqual([registration.id]);
    expect((await f.admin.get(`${SESSIONS_OF(course.id)}/${session.id}`)).body.sessions[0]).toMatchObject({ registered_count: 1, present_count: 1 });
    const cleared = await f.admin.put(`${REGISTRATIONS_OF(session.id)}/${registration.id}`, { live_course_session_registration: { marked_complete_at: null } });
    expect(cleared.body.registrations[0].marked_complete_at).toBeNull();
    for (const body of [{}, { live_course_session_registration: {} }, { live_course_session_registration: { marked_complete_at: 'soon' } }]) {
      expect((await f.admin.patch(`${REGISTRATIONS_OF(session.id)}/${registration.id}`, body)).status).toBe(400);
    }
    expect((await f.admin.patch(`${REGISTRATIONS_OF(session.id)}/999999`, { live_course_session_registration: { marked_complete_at: null } })).status).toBe(404);
    expect((await f.admin.delete(`${REGISTRATIONS_OF(session.id)}/${registration.id}`)).status).toBe(204);
    expect((await f.admin.delete(`${REGISTRATIONS_OF(session.id)}/${registration.id}`)).status).toBe(404);
    expect(await registeredIds(session.id)).toEqual([]);
    const history = await f.admin.get(`${REGISTRATIONS_OF(session.id)}?only_deleted=true`);
    expect(history.body.registrations).toEqual([expect.objectContaining({ id: registration.id, deleted_at: expect.any(String) })]);
    const since = await f.admin.get(`${REGISTRATIONS_OF(session.id)}?deleted_after=${encodeURIComponent('2000-01-01T00:00:00Z')}`);
    expect(since.body.registrations).toEqual(history.body.registrations);
    expect((await f.admin.get(REGISTRATIONS_OF(999999))).status).toBe(404);
    await f.eventOf('scheduling.registration.created', (d) => d.registration_id === Number(registration.id));
    await f.eventOf('scheduling.registration.deleted', (d) => d.registration_id === Number(registration.id));
  });

  it('never oversells: 100 concurrent registrations for 10 seats give exactly 10 registrations and 90 answers of 400', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 10 });
    const users = await f.enrolledLearners(course.id, 100);
    const answers = await Promise.all(users.map((u) => f.admin.post(REGISTRATIONS_OF(session.id), { user_id: u.userId })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 204)).toHaveLength(10);
    expect(statuses.filter((s) => s === 400)).toHaveLength(90);
    expect(answers.filter((r) => r.status === 400).every((r) => r.body.code === 'SESSION_FULL')).toBe(true);
    expect(await registeredIds(session.id)).toHaveLength(10);
    expect((await f.admin.get(`${SESSIONS_OF(course.id)}/${session.id}`)).body.sessions[0].registered_count).toBe(10);
  });

  it('leaves no registration or waitlist place behind when a learner is removed while registering (40 users, 5 at a time)', async () => {
    const course = await f.createCourse();
    const open = await f.createSession(course.id, { seats: 1000 });
    const full = await f.createSession(course.id, { seats: 1 });
    const [holder, ...users] = await f.enrolledLearners(course.id, 41);
    expect((await f.admin.post(REGISTRATIONS_OF(full.id), { user_id: holder.userId })).status).toBe(204);
    const learners = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners?per_page=100`)).body.learners;
    const enrollmentOf = new Map(learners.map((e: { id: string; user_id: string }) => [Number(e.user_id), e.id]));
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const race = async (u: (typeof users)[number], i: number) => {
      const [registered, waitlisted, removed] = await Promise.all([
        f.admin.post(REGISTRATIONS_OF(open.id), { user_id: u.userId }),
        f.admin.post(waitlistOf(full.id), { user_id: u.userId }),
        sleep(i % 8).then(() => f.admin.delete(`${LIVE_COURSES}/${course.id}/learners/${enrollmentOf.get(u.userId)}`)),
      ]);
      return [registered, waitlisted].map((r) => `${r.status}${r.body?.code ? ` ${r.body.code}` : ''}`).concat(String(removed.status));
    };
    // In waves of 5 users, so each removal (0-7 ms late) meets its own user's registration and waitlist
    // place in flight, rather than queueing behind the other users' removals on the course lock.
    const answers: string[][] = [];
    for (let i = 0; i < users.length; i += 5) answers.push(...(await Promise.all(users.slice(i, i + 5).map((u, j) => race(u, i + j)))));
    for (const answer of answers) {
      expect(['204', '400 NOT_ENROLLED']).toContain(answer[0]);
      expect(['204', '400 NOT_ENROLLED']).toContain(answer[1]);
      expect(answer[2]).toBe('204');
    }
    const sessionIds = [Number(open.id), Number(full.id)];
    const orphans = await f.t.db.query<{ kind: string; user_id: number }>(
      `SELECT 'registration' AS kind, r.user_id FROM scheduling.registrations r WHERE r.session_id = ANY($1) AND r.deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM scheduling.live_course_enrollments e WHERE e.live_course_id = $2 AND e.user_id = r.user_id)
       UNION ALL
       SELECT 'waitlist place', w.user_id FROM scheduling.waitlist_places w WHERE w.session_id = ANY($1)
         AND NOT EXISTS (SELECT 1 FROM scheduling.live_course_enrollments e WHERE e.live_course_id = $2 AND e.user_id = w.user_id)`,
      [sessionIds, Number(course.id)],
    );
    expect(orphans).toEqual([]);
    expect(await registeredIds(open.id)).toEqual([]);
    expect(await registeredIds(full.id)).toEqual([holder.userId]);
  });

  it('waitlists (204; 400 when registered or waitlisted), promotes first come first served when a seat frees, and from_waitlist takes a free seat', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 1 });
    const [a, b, c] = await f.enrolledLearners(course.id, 3);
    expect((await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId })).status).toBe(204);
    expect((await f.admin.post(waitlistOf(session.id), { user_id: a.userId })).body.code).toBe('ALREADY_REGISTERED');
    expect((await f.admin.post(waitlistOf(session.id), { user_id: b.userId })).status).toBe(204);
    expect((await f.admin.post(waitlistOf(session.id), { user_id: c.userId })).status).toBe(204);
    const twice = await f.admin.post(waitlistOf(session.id), { user_id: b.userId });
    expect([twice.status, twice.body.code]).toEqual([400, 'ALREADY_WAITLISTED']);
    expect((await f.admin.post(waitlistOf(999999), { user_id: b.userId })).status).toBe(404);
    // a leaves: b (first in line) takes the seat and is told so.
    const [registration] = (await f.admin.get(REGISTRATIONS_OF(session.id))).body.registrations;
    expect((await f.admin.delete(`${REGISTRATIONS_OF(session.id)}/${registration.id}`)).status).toBe(204);
    expect(await registeredIds(session.id)).toEqual([b.userId]);
    await f.eventOf('scheduling.waitlist.promoted', (d) => d.session_id === session.id && d.user_id === b.userId);
    // Raising the seats promotes c; then from_waitlist moves a waitlisted user into a seat freed by hand.
    expect((await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: { seats: 2 } })).status).toBe(200);
    expect(await registeredIds(session.id)).toEqual([b.userId, c.userId]);
    expect((await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: { seats: 1 } })).status).toBe(400);
    expect((await f.admin.post(waitlistOf(session.id), { user_id: a.userId })).status).toBe(204);
    expect((await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId, from_waitlist: true })).body.code).toBe('SESSION_FULL');
    // Removing c's enrollment frees c's seat, which goes to a.
    const enrollments = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners`)).body.learners;
    const cEnrollment = enrollments.find((e: { user_id: string }) => e.user_id === String(c.userId));
    expect((await f.admin.delete(`${LIVE_COURSES}/${course.id}/learners/${cEnrollment.id}`)).status).toBe(204);
    expect(await registeredIds(session.id)).toEqual([b.userId, a.userId]);
  });

  it('identity.user.deleted removes the user from registrations and waitlists and promotes the next in line', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 1 });
    const [a, b] = await f.enrolledLearners(course.id, 2);
    await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId });
    await f.admin.post(waitlistOf(session.id), { user_id: b.userId });
    expect((await f.admin.delete(`/api/admin/users/${a.userId}`)).status).toBe(204);
    await eventually(async () => ((await registeredIds(session.id)).includes(b.userId) ? true : undefined));
    expect(await registeredIds(session.id)).toEqual([b.userId]);
    // The enrollment goes too, as an author's removal takes it.
    const learners = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners`)).body.learners as { user_id: string }[];
    expect(learners.map((l) => l.user_id)).toEqual([String(b.userId)]);
    expect((await f.admin.get(`${LIVE_COURSES}/${course.id}?includes[]=enrollments`)).body.live_courses[0].enrollments_count).toBe(1);
    await f.eventOf('scheduling.live_course_enrollment.removed', (d) => d.user_id === a.userId && d.live_course_id === Number(course.id));
  });

  it("identity.user.deleted gives a deleted live course's seats to nobody: its waitlist is told of no seat", async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 1 });
    const [a, b] = await f.enrolledLearners(course.id, 2);
    await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId });
    await f.admin.post(waitlistOf(session.id), { user_id: b.userId });
    expect((await f.admin.delete(`${LIVE_COURSES}/${course.id}`)).status).toBe(204);
    expect((await f.admin.delete(`/api/admin/users/${a.userId}`)).status).toBe(204);
    await f.eventOf('scheduling.live_course_enrollment.removed', (d) => d.user_id === a.userId && d.live_course_id === Number(course.id));
    const live = await f.t.db.query<{ user_id: number }>('SELECT user_id FROM scheduling.registrations WHERE session_id = $1 AND deleted_at IS NULL', [session.id]);
    expect(live).toEqual([]);
    expect(f.events.filter((e) => e.type === 'scheduling.waitlist.promoted' && (e.data as { session_id: number }).session_id === session.id)).toEqual([]);
  });

  it('withdraws an enrollment of a user whose deletion was handled while the enrollment waited, so none outlives them', async () => {
    const course = await f.createCourse();
    const [other] = await f.enrolledLearners(course.id, 1);
    const victim = await f.t.factory.user(f.cast.accountId, ['learner']);
    // Identity vouches for the victim, then the enrollment waits for the course, holding the victim's departure
    // lock (DepartedUsers), while the deletion is heard: its consumer waits on that lock, then withdraws it.
    const enrolled = await holdingLock(f.t.db.url, 'SELECT 1 FROM scheduling.live_courses WHERE id = $1 FOR UPDATE', [Number(course.id)], async (held) => {
      const enrolling = f.admin.post(`${LIVE_COURSES}/${course.id}/learners`, { learners: [{ user_id: victim.userId }] });
      await held.waiters(1);
      expect((await f.admin.delete(`/api/admin/users/${victim.userId}`)).status).toBe(204);
      await held.waiters(2);
      await held.release();
      return enrolling;
    });
    expect(enrolled.status).toBe(201);
    await eventually(async () => {
      const learners = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners`)).body.learners as { user_id: string }[];
      return learners.length === 1 ? learners : undefined;
    });
    const learners = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners`)).body.learners as { user_id: string }[];
    expect(learners.map((l) => l.user_id)).toEqual([String(other.userId)]);
  });

  it("enrolls a batch while a learner of the course who shares a batch user's departure lock is deleted: no deadlock, both done", async () => {
    const course = await f.createCourse();
    const [leaving] = await f.enrolledLearners(course.id, 1);
    // Departure locks are shared by user id modulo 32: 32 new users hold one that shares the leaving learner's.
    const batch: TestUser[] = [];
    for (let i = 0; i < 32; i++) batch.push(await f.t.factory.user(f.cast.accountId, ['learner']));
    expect(batch.some((u) => u.userId % 32 === leaving.userId % 32)).toBe(true);
    const deadlocks = async () => (await f.t.db.query<{ n: number }>('SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()'))[0].n;
    const before = await deadlocks();
    const enrolled = await holdingLock(f.t.db.url, 'SELECT 1 FROM scheduling.live_courses WHERE id = $1 FOR UPDATE', [Number(course.id)], async (held) => {
      const enrolling = f.admin.post(`${LIVE_COURSES}/${course.id}/learners`, { learners: batch.map((u) => ({ user_id: u.userId })) });
      await held.waiters(1);
      expect((await f.admin.delete(`/api/admin/users/${leaving.userId}`)).status).toBe(204);
      // The deletion's consumer waits too, behind the enrollment or this lock, whichever its order meets first.
      await held.waiters(2);
      // Past Postgres's deadlock check of that wait (deadlock_timeout, 1 s): were the two orders opposite, the
      // cycle would close after the release and the enrollment, checking last, would be the one refused.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await held.release();
      return enrolling;
    });
    expect(enrolled.status).toBe(201);
    await eventually(async () => {
      const learners = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners?per_page=100`)).body.learners as { user_id: string }[];
      return learners.some((l) => l.user_id === String(leaving.userId)) ? undefined : learners;
    });
    const learners = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners?per_page=100`)).body.learners as { user_id: string }[];
    expect(learners.map((l) => Number(l.user_id)).sort((a, b) => a - b)).toEqual(batch.map((u) => u.userId).sort((a, b) => a - b));
    // A deadlock's victim may be the consumer, which its retry hides: Postgres counts it (its backend reports within a second or two).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await deadlocks()).toBe(before);
  });

  it('unregisters once when a removal meets a registration unregistered meanwhile: no second event', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 1 });
    const [a] = await f.enrolledLearners(course.id, 1);
    await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId });
    const [registration] = (await f.admin.get(REGISTRATIONS_OF(session.id))).body.registrations;
    const learner = ((await f.admin.get(`${LIVE_COURSES}/${course.id}/learners`)).body.learners as { id: string; user_id: string }[]).find((l) => l.user_id === String(a.userId))!;
    // The removal reads a's registration, then waits for the session, which an unregistration holds (played here
    // by the test's transaction, which writes what it writes but its event): it commits first.
    const removed = await holdingLock(f.t.db.url, 'SELECT 1 FROM scheduling.sessions WHERE id = $1 FOR UPDATE', [session.id], async (held) => {
      const removing = f.admin.delete(`${LIVE_COURSES}/${course.id}/learners/${learner.id}`);
      await held.waiters(1);
      await held.query('UPDATE scheduling.registrations SET deleted_at = now(), updated_at = now() WHERE id = $1', [Number(registration.id)]);
      await held.release('commit');
      return removing;
    });
    expect(removed.status).toBe(204);
    const events = await f.t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM scheduling.outbox WHERE type = 'scheduling.registration.deleted' AND payload->'data'->>'registration_id' = $1`, [String(registration.id)]);
    expect(events[0].n).toBe(0);
  });

  it('gives no seat to a waitlist place deleted while the promotion read it (its user withdrew or was deleted)', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 1 });
    const [a, b, c] = await f.enrolledLearners(course.id, 3);
    await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId });
    await f.admin.post(waitlistOf(session.id), { user_id: b.userId });
    await f.admin.post(waitlistOf(session.id), { user_id: c.userId });
    const [registration] = (await f.admin.get(REGISTRATIONS_OF(session.id))).body.registrations;
    // b's place is being deleted (a withdrawal not committed yet) when a's seat frees: the promotion waits on it.
    const unregistered = await holdingLock(f.t.db.url, 'DELETE FROM scheduling.waitlist_places WHERE session_id = $1 AND user_id = $2', [session.id, b.userId], async (held) => {
      const freeing = f.admin.delete(`${REGISTRATIONS_OF(session.id)}/${registration.id}`);
      await held.waiters(1);
      await held.release('commit');
      return freeing;
    });
    expect(unregistered.status).toBe(204);
    expect(await registeredIds(session.id)).toEqual([c.userId]);
  });

  it('concluding completes checked-in enrollments (counted in the user summary) and unregisters the absent', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { start_at: '2021-01-01T09:00:00Z', seats: 5 });
    const [present, absent] = await f.enrolledLearners(course.id, 2);
    for (const u of [present, absent]) expect((await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: u.userId })).status).toBe(204);
    const rows = (await f.admin.get(REGISTRATIONS_OF(session.id))).body.registrations;
    const presentRow = rows.find((r: { user_id: string }) => r.user_id === String(present.userId));
    await f.admin.patch(`${REGISTRATIONS_OF(session.id)}/${presentRow.id}`, { live_course_session_registration: { marked_complete_at: '2021-01-01T09:10:00Z' } });
    const concluded = await f.admin.post(`${SESSIONS_OF(course.id)}/${session.id}/conclude`);
    expect(concluded.status).toBe(200);
    expect(concluded.body.sessions[0]).toMatchObject({ registered_count: 1, present_count: 1 });
    expect(await registeredIds(session.id)).toEqual([present.userId]);
    const learners = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners`)).body.learners;
    expect(learners.find((l: { user_id: string }) => l.user_id === String(present.userId))).toMatchObject({ state: 'completed', completed_at: expect.any(String) });
    expect(learners.find((l: { user_id: string }) => l.user_id === String(absent.userId))).toMatchObject({ state: 'active', completed_at: null });
    await f.eventOf('scheduling.live_course_enrollment.completed', (d) => d.user_id === present.userId && d.live_course_id === Number(course.id));
    await eventually(async () => ((await f.admin.get(`/api/admin/users/${present.userId}/summary`)).body.summary?.completed_live_courses === 1 ? true : undefined));
    const late = await f.t.factory.user(f.cast.accountId, ['learner']);
    await f.admin.post(`${LIVE_COURSES}/${course.id}/learners`, { learners: [{ user_id: late.userId }] });
    expect((await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: late.userId })).body.code).toBe('SESSION_CONCLUDED');
    // Check-ins are final: clearing one now would leave a completed enrollment without a presence.
    const cleared = await f.admin.patch(`${REGISTRATIONS_OF(session.id)}/${presentRow.id}`, { live_course_session_registration: { marked_complete_at: null } });
    expect([cleared.status, cleared.body.code]).toEqual([400, 'SESSION_CONCLUDED']);
    // So is unregistering it: the check-in would go with the registration.
    const unregistered = await f.admin.delete(`${REGISTRATIONS_OF(session.id)}/${presentRow.id}`);
    expect([unregistered.status, unregistered.body?.code]).toEqual([400, 'SESSION_CONCLUDED']);
    expect(await registeredIds(session.id)).toEqual([present.userId]);
    expect((await f.admin.get(`${SESSIONS_OF(course.id)}/${session.id}`)).body.sessions[0]).toMatchObject({ present_count: 1 });

    // Deleting the present user keeps what they did: the completed enrollment and the concluded session's
    // check-in stay; they leave the sessions still open.
    const next = await f.createSession(course.id, { seats: 5 });
    expect((await f.admin.post(REGISTRATIONS_OF(next.id), { user_id: present.userId })).status).toBe(204);
    expect((await f.admin.delete(`/api/admin/users/${present.userId}`)).status).toBe(204);
    await eventually(async () => ((await registeredIds(next.id)).length === 0 ? true : undefined));
    const kept = (await f.admin.get(`${LIVE_COURSES}/${course.id}/learners`)).body.learners as { user_id: string; state: string }[];
    expect(kept.find((l) => l.user_id === String(present.userId))).toMatchObject({ state: 'completed' });
    expect((await f.admin.get(`${SESSIONS_OF(course.id)}/${session.id}`)).body.sessions[0]).toMatchObject({ present_count: 1 });
  });

  it("answers 404 for another account's sessions and registrations", async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 3 });
    const [a] = await f.enrolledLearners(course.id, 1);
    await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId });
    const [registration] = (await f.admin.get(REGISTRATIONS_OF(session.id))).body.registrations;
    expect((await f.stranger.get(REGISTRATIONS_OF(session.id))).status).toBe(404);
    expect((await f.stranger.post(REGISTRATIONS_OF(session.id), { user_id: f.cast.stranger.userId })).status).toBe(404);
    expect((await f.stranger.post(waitlistOf(session.id), { user_id: f.cast.stranger.userId })).status).toBe(404);
    expect((await f.stranger.patch(`${REGISTRATIONS_OF(session.id)}/${registration.id}`, { live_course_session_registration: { marked_complete_at: null } })).status).toBe(404);
    expect((await f.stranger.delete(`${REGISTRATIONS_OF(session.id)}/${registration.id}`)).status).toBe(404);
    expect(await registeredIds(session.id)).toEqual([a.userId]);
  });

  // The writes of thousands of rows come last: the consumers' backlog they leave (thousands of events) would
  // hold up the events the tests after them wait for.
  it('identity.user.deleted takes a user of 400 live courses out of all of them: registrations, waitlists moved up, open enrollments; completions and check-ins stay', async () => {
    const [gone, next] = [await f.t.factory.user(f.cast.accountId, ['learner']), await f.t.factory.user(f.cast.accountId, ['learner'])];
    // Straight into the tables: 400 courses through the API would be most of this suite's time. In every course the
    // user holds the one seat of an open session; in every fourth, `next` waits for it; every fifth enrollment is
    // completed (it stays); every seventh course also has a concluded session the user was checked in at (it stays).
    const courses = (await f.t.db.query<{ id: number }>(
      `INSERT INTO scheduling.live_courses (account_id, author_id, title) SELECT $1, $2, 'Many ' || n FROM generate_series(1, 400) n RETURNING id`,
      [f.cast.accountId, f.cast.author.userId],
    )).map((c) => c.id).sort((x, y) => x - y);
    const at = (every: number) => courses.filter((_, i) => i % every === 0);
    await f.t.db.query(
      `INSERT INTO scheduling.live_course_enrollments (account_id, live_course_id, user_id, completed_at)
       SELECT $1::int, c, $2::int, CASE WHEN c = ANY($4::int[]) THEN now() END FROM unnest($3::int[]) c
       UNION ALL SELECT $1::int, c, $5::int, NULL FROM unnest($6::int[]) c`,
      [f.cast.accountId, gone.userId, courses, at(5), next.userId, at(4)],
    );
    const open = await f.t.db.query<{ id: number; live_course_id: number }>(
      'INSERT INTO scheduling.sessions (account_id, live_course_id, seats) SELECT $1, c, 1 FROM unnest($2::int[]) c RETURNING id, live_course_id',
      [f.cast.accountId, courses],
    );
    await f.t.db.query('INSERT INTO scheduling.registrations (account_id, session_id, user_id) SELECT $1, unnest($2::int[]), $3', [f.cast.accountId, open.map((s) => s.id), gone.userId]);
    const waited = open.filter((s) => at(4).includes(s.live_course_id)).map((s) => s.id).sort((x, y) => x - y);
    await f.t.db.query('INSERT INTO scheduling.waitlist_places (account_id, session_id, user_id) SELECT $1, unnest($2::int[]), $3', [f.cast.accountId, waited, next.userId]);
    const concluded = await f.t.db.query<{ id: number }>(
      `INSERT INTO scheduling.sessions (account_id, live_course_id, seats, start_at, concluded_at) SELECT $1, c, 1, now() - interval '1 day', now() FROM unnest($2::int[]) c RETURNING id`,
      [f.cast.accountId, at(7)],
    );
    await f.t.db.query('INSERT INTO scheduling.registrations (account_id, session_id, user_id, marked_complete_at) SELECT $1, unnest($2::int[]), $3, now()', [f.cast.accountId, concluded.map((s) => s.id), gone.userId]);

    expect((await f.admin.delete(`/api/admin/users/${gone.userId}`)).status).toBe(204);
    const stayed = await eventually(async () => {
      const rows = await f.t.db.query<{ live_course_id: number }>('SELECT live_course_id FROM scheduling.live_course_enrollments WHERE user_id = $1 ORDER BY live_course_id', [gone.userId]);
      return rows.length === at(5).length ? rows : undefined;
    }, 30_000);
    expect(stayed.map((r) => r.live_course_id)).toEqual(at(5));
    const registered = await f.t.db.query<{ session_id: number }>('SELECT session_id FROM scheduling.registrations WHERE user_id = $1 AND deleted_at IS NULL ORDER BY session_id', [gone.userId]);
    expect(registered.map((r) => r.session_id)).toEqual(concluded.map((s) => s.id).sort((x, y) => x - y));
    const promoted = await f.t.db.query<{ session_id: number }>('SELECT session_id FROM scheduling.registrations WHERE user_id = $1 AND deleted_at IS NULL ORDER BY session_id', [next.userId]);
    expect(promoted.map((r) => r.session_id)).toEqual(waited);
    expect(await f.t.db.query('SELECT 1 FROM scheduling.waitlist_places WHERE user_id = $1', [next.userId])).toEqual([]);
    const events = await f.t.db.query<{ type: string; n: number }>(
      `SELECT type, count(*)::int AS n FROM scheduling.outbox WHERE (payload->'data'->>'user_id')::int = ANY($1::int[]) GROUP BY type ORDER BY type`,
      [[gone.userId, next.userId]],
    );
    expect(events).toEqual([
      { type: 'scheduling.live_course_enrollment.removed', n: courses.length - at(5).length },
      { type: 'scheduling.registration.deleted', n: courses.length },
      { type: 'scheduling.waitlist.promoted', n: waited.length },
    ]);
  });

  it('moves a waitlist of 10,000 up in the request that adds 8,000 seats, first come first served, passing over users no longer enrolled', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 0 });
    // Straight into the tables: 10,000 learners through the API would be most of this suite's time. Every tenth is not enrolled (any more).
    const users = (await f.t.db.query<{ id: number }>(
      `INSERT INTO identity.users (account_id, uid, first_name, last_name, email)
       SELECT $1, 'wait-' || $2 || '-' || n, 'Waiting', 'Learner ' || n, 'wait-' || $2 || '-' || n || '@example.test' FROM generate_series(1, 10000) n RETURNING id`,
      [f.cast.accountId, session.id],
    )).map((u) => u.id).sort((x, y) => x - y);
    const enrolled = users.filter((_, i) => (i + 1) % 10 !== 0);
    await f.t.db.query('INSERT INTO scheduling.live_course_enrollments (account_id, live_course_id, user_id) SELECT $1, $2, unnest($3::int[])', [f.cast.accountId, course.id, enrolled]);
    await f.t.db.query('INSERT INTO scheduling.waitlist_places (account_id, session_id, user_id) SELECT $1, $2, u FROM unnest($3::int[]) WITH ORDINALITY AS x(u, n) ORDER BY n', [f.cast.accountId, session.id, users]);
    // Five statements a place, one place at a time: past the gateway's 5 s, a 504 that committed later.
    const res = await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: { seats: 8000 } });
    expect(res.status).toBe(200);
    // The first 8,000 enrolled in line (the first 8,888 places) take the seats; the places of the rest stay.
    const seatedUsers = enrolled.slice(0, 8000);
    const registrations = await f.t.db.query<{ id: number; user_id: number }>('SELECT id, user_id FROM scheduling.registrations WHERE session_id = $1 AND deleted_at IS NULL ORDER BY id', [session.id]);
    expect(registrations.map((r) => r.user_id)).toEqual(seatedUsers);
    const left = await f.t.db.query<{ user_id: number }>('SELECT user_id FROM scheduling.waitlist_places WHERE session_id = $1 ORDER BY id', [session.id]);
    expect(left.map((p) => p.user_id)).toEqual(users.slice(8888));
    const events = await f.t.db.query<{ registration_id: string; user_id: string }>(
      `SELECT payload->'data'->>'registration_id' AS registration_id, payload->'data'->>'user_id' AS user_id FROM scheduling.outbox
        WHERE type = 'scheduling.waitlist.promoted' AND payload->'data'->>'session_id' = $1 ORDER BY created_at`,
      [String(session.id)],
    );
    expect(events.map((e) => [Number(e.registration_id), Number(e.user_id)])).toEqual(registrations.map((r) => [r.id, r.user_id]));
  });
});
