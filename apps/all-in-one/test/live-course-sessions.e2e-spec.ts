import { eventually } from '@lms/testing';
import { type SchedulingFixture, SESSIONS_OF, startSchedulingFixture } from './scheduling-fixture.js';

describe('live course sessions and parts, end to end', () => {
  let f: SchedulingFixture;

  beforeAll(async () => {
    f = await startSchedulingFixture('e2e-live-course-sessions');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates sessions (201) from an empty object or with times in a timezone, shows and lists them with their counts', async () => {
    const course = await f.createCourse();
    const instructor = await f.t.factory.user(f.cast.accountId, ['author']);
    const res = await f.author.post(SESSIONS_OF(course.id), {
      timezone: 'Europe/Paris',
      sessions: [{}, { start_at: '2030-07-01T09:00', end_at: '2030-07-01T17:00:00+02:00', location: 'Room 1', seats: 10, notes: 'Bring ID', instructor_ids: [instructor.userId] }],
    });
    expect(res.status).toBe(201);
    const [empty, day] = res.body.sessions;
    expect(empty).toMatchObject({ start_at: null, end_at: null, seats: null, parent_id: null, live_course_id: Number(course.id), registered_count: 0, present_count: 0, parts_count: 0, has_web_conference: false, instuctors: [] });
    expect(day).toEqual({
      id: expect.any(Number),
      start_at: '2030-07-01T07:00:00.000Z',
      end_at: '2030-07-01T15:00:00.000Z',
      location: 'Room 1',
      seats: 10,
      registered_count: 0,
      present_count: 0,
      parts_count: 0,
      parent_id: null,
      notes: 'Bring ID',
      live_course_id: Number(course.id),
      concluded_at: null,
      published_at: null,
      timezone: 'Europe/Paris',
      enroll_url: `/enroll/live_courses/${course.uuid}/sessions/${day.id}`,
      has_web_conference: false,
      instuctors: [{ id: instructor.userId, name: expect.any(String), email: `${instructor.uid}@example.test`, avatar_url: null }],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const parts = await f.admin.post(SESSIONS_OF(course.id), { parent_id: day.id, sessions: [{ start_at: '2030-07-01T09:00:00Z' }, { start_at: '2030-07-01T13:00:00Z' }] });
    expect(parts.status).toBe(201);
    expect(parts.body.sessions.map((p: { parent_id: number }) => p.parent_id)).toEqual([day.id, day.id]);
    // parent_id null, as a session shows it, is no parent: a session, not a 500.
    const topLevel = await f.admin.post(SESSIONS_OF(course.id), { parent_id: null, sessions: [{ start_at: '2030-07-02T09:00:00Z' }] });
    expect([topLevel.status, topLevel.body.sessions?.[0].parent_id]).toEqual([201, null]);
    await f.admin.delete(`${SESSIONS_OF(course.id)}/${topLevel.body.sessions[0].id}`);
    const shown = await f.admin.get(`${SESSIONS_OF(course.id)}/${day.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.sessions[0].parts_count).toBe(2);
    const again = await f.admin.get(`${SESSIONS_OF(course.id)}/${day.id}`, { 'if-none-match': shown.headers.get('etag') ?? '' });
    expect(again.status).toBe(304);
    const list = await f.admin.get(SESSIONS_OF(course.id));
    expect(list.status).toBe(200);
    expect(list.body.sessions.map((s: { id: number }) => s.id)).toEqual([day.id, empty.id]);
    const listed = await f.admin.get(`${SESSIONS_OF(course.id)}?parent_id=${day.id}`);
    expect(listed.body.sessions.map((s: { id: number }) => s.id)).toEqual(parts.body.sessions.map((s: { id: number }) => s.id));
    const etag = list.headers.get('etag') ?? '';
    expect((await f.admin.get(SESSIONS_OF(course.id), { 'if-none-match': etag })).status).toBe(304);
    expect((await f.admin.get(`/api/author/live_courses/${course.id}`)).body.live_courses[0].sessions_count).toBe(2);
    await f.eventOf('scheduling.session.created', (d) => d.id === day.id);
  });

  it('refuses bad sessions with 400 (empty array, unknown time zone, end before start, bad parent) and unknown courses with 404', async () => {
    const course = await f.createCourse();
    const cases = [
      {},
      { sessions: [] },
      { sessions: [{}], timezone: 'Mars/Olympus' },
      { sessions: [{}], timezone: '+01:00' },
      // Year 0000, and a wall time its zone carries past 9999: no RFC 3339 answer could show them.
      { sessions: [{ start_at: '0000-06-01T10:00:00' }], timezone: 'UTC' },
      { sessions: [{ start_at: '9999-12-31T23:30' }], timezone: 'America/New_York' },
      { sessions: [{ timezone: 'Europe/Paris ' }] },
      { sessions: [{ start_at: 'tomorrow' }] },
      // Days and times the calendar and clock do not have, with an offset, without, and in a zone.
      { sessions: [{ start_at: '2030-02-31T10:00:00Z' }] },
      { sessions: [{ start_at: '2030-02-31T10:00' }], timezone: 'Europe/Paris' },
      { sessions: [{ end_at: '2030-13-01T10:00' }], timezone: 'Europe/Paris' },
      { sessions: [{ start_at: '2030-01-01T25:00', timezone: 'Asia/Tokyo' }] },
      { sessions: [{ start_at: '2030-01-01T24:00' }] },
      { sessions: [{ start_at: '2030-01-01T10:60:00' }], timezone: 'UTC' },
      { sessions: [{ start_at: '2030-01-02T10:00:00Z', end_at: '2030-01-02T09:00:00Z' }] },
      { sessions: [{ seats: -1 }] },
      { sessions: [{ instructor_ids: [999999] }] },
      { sessions: [{}], parent_id: 999999 },
      { sessions: [{ unknown: 1 }] },
    ];
    for (const body of cases) expect([body, (await f.admin.post(SESSIONS_OF(course.id), body)).status]).toEqual([body, 400]);
    expect((await f.admin.get(SESSIONS_OF(course.id))).body.sessions).toEqual([]);
    expect((await f.admin.post(SESSIONS_OF(999999), { sessions: [{}] })).status).toBe(404);
    expect((await f.admin.get(SESSIONS_OF(999999))).status).toBe(404);
  });

  it('updates (at least one field, else 400), deletes (204) and lists deleted ones with the flags', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { location: 'A' });
    const patched = await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: { location: 'B', start_at: '2031-01-01T10:00' }, timezone: 'America/New_York' });
    expect(patched.status).toBe(200);
    expect(patched.body.sessions[0]).toMatchObject({ location: 'B', start_at: '2031-01-01T15:00:00.000Z' });
    expect((await f.admin.put(`${SESSIONS_OF(course.id)}/${session.id}`, { session: { notes: 'n' } })).body.sessions[0].notes).toBe('n');
    expect((await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: {} })).status).toBe(400);
    expect((await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: {}, timezone: 'Europe/Paris' })).status).toBe(400);
    // The element's zone alone is a change: the zone shown, with the times as they were.
    const zoned = await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: { timezone: 'Asia/Kolkata' } });
    expect([zoned.status, zoned.body.sessions?.[0]]).toEqual([200, expect.objectContaining({ timezone: 'Asia/Kolkata', start_at: '2031-01-01T15:00:00.000Z' })]);
    expect((await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, { session: { end_at: '2030-01-01T00:00:00Z' } })).status).toBe(400);
    // In the session's stored zone (Asia/Kolkata now): a month 13 is refused, not a 500.
    for (const body of [{ session: { end_at: '2031-13-01T10:00' } }, { session: { end_at: '2031-02-29T10:00' } }]) {
      const res = await f.admin.patch(`${SESSIONS_OF(course.id)}/${session.id}`, body);
      expect([body, res.status, res.headers.get('content-type')]).toEqual([body, 400, expect.stringContaining('application/problem+json')]);
    }
    expect((await f.admin.patch(`${SESSIONS_OF(course.id)}/999999`, { session: { notes: 'x' } })).status).toBe(404);
    // instructor_ids is a list, never null: a 400, neither a 500 nor a session without its instructors' column.
    for (const [method, path, body] of [
      ['patch', `${SESSIONS_OF(course.id)}/${session.id}`, { session: { instructor_ids: null } }],
      ['post', SESSIONS_OF(course.id), { sessions: [{ instructor_ids: null }] }],
    ] as const) {
      const res = await f.admin[method](path, body);
      expect([body, res.status, res.body.code]).toEqual([body, 400, 'VALIDATION_FAILED']);
    }
    expect((await f.admin.get(`${SESSIONS_OF(course.id)}/${session.id}`)).body.sessions[0].instuctors).toEqual([]);
    const other = await f.createCourse();
    expect((await f.admin.get(`${SESSIONS_OF(other.id)}/${session.id}`)).status).toBe(404);
    expect((await f.admin.delete(`${SESSIONS_OF(course.id)}/${session.id}`)).status).toBe(204);
    expect((await f.admin.delete(`${SESSIONS_OF(course.id)}/${session.id}`)).status).toBe(404);
    expect((await f.admin.get(`${SESSIONS_OF(course.id)}/${session.id}`)).status).toBe(404);
    expect((await f.admin.get(SESSIONS_OF(course.id))).body.sessions).toEqual([]);
    const deleted = await f.admin.get(`${SESSIONS_OF(course.id)}?only_deleted=true`);
    expect(deleted.body.sessions).toEqual([expect.objectContaining({ id: session.id, deleted_at: expect.any(String) })]);
  });

  it('announces a publish to its registered users a thousand per event, however many there are', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { start_at: '2035-02-01T10:00:00Z' });
    // More registrations than two events hold (written directly: 2,345 users through the API would only be slower).
    const users = Array.from({ length: 2_345 }, (_, i) => 900_000 + i);
    await f.t.db.query('INSERT INTO scheduling.registrations (account_id, session_id, user_id) SELECT $1, $2, unnest($3::int[])', [f.cast.accountId, session.id, users]);
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/${session.id}/publish`)).status).toBe(200);
    const published = await f.eventOf('scheduling.session.published', (d) => d.id === session.id);
    expect(published.data).toMatchObject({ recipients_count: 2_345 });
    const rest = await eventually(async () => {
      const found = f.events.filter((e) => e.type === 'scheduling.session.publish_recipients' && (e.data as { id: number }).id === session.id);
      return found.length === 2 ? found : undefined;
    });
    const batches = [published, ...rest.sort((a, b) => (a.data as { batch: number }).batch - (b.data as { batch: number }).batch)];
    expect(batches.map((e) => (e.data as { recipients: number[] }).recipients.length)).toEqual([1_000, 1_000, 345]);
    expect(rest.map((e) => e.data)).toEqual(expect.arrayContaining([expect.objectContaining({ live_course_id: Number(course.id), batch: 2 })]));
    expect(batches.flatMap((e) => (e.data as { recipients: number[] }).recipients)).toEqual(users);
  });

  it('publishes once (200, then unchanged), refuses what cannot be published (400), concludes started sessions only (400 otherwise)', async () => {
    const course = await f.createCourse();
    const unscheduled = await f.createSession(course.id);
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/${unscheduled.id}/publish`)).status).toBe(400);
    const future = await f.createSession(course.id, { start_at: '2035-01-01T10:00:00Z' });
    const published = await f.admin.post(`${SESSIONS_OF(course.id)}/${future.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.sessions[0].published_at).toEqual(expect.any(String));
    const twice = await f.admin.post(`${SESSIONS_OF(course.id)}/${future.id}/publish`);
    expect(twice.body.sessions[0].published_at).toBe(published.body.sessions[0].published_at);
    await f.eventOf('scheduling.session.published', (d) => d.id === future.id);
    expect(f.events.filter((e) => e.type === 'scheduling.session.published' && (e.data as { id: number }).id === future.id)).toHaveLength(1);
    expect((await f.admin.get(`/api/author/live_courses/${course.id}`)).body.live_courses[0].is_published).toBe(true);
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/${future.id}/conclude`)).status).toBe(400);
    const past = await f.createSession(course.id, { start_at: '2020-01-01T10:00:00Z', end_at: '2020-01-01T12:00:00Z' });
    const concluded = await f.admin.post(`${SESSIONS_OF(course.id)}/${past.id}/conclude`);
    expect(concluded.status).toBe(200);
    expect(concluded.body.sessions[0].concluded_at).toEqual(expect.any(String));
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/${past.id}/conclude`)).status).toBe(400);
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/${past.id}/publish`)).status).toBe(400);
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/999999/conclude`)).status).toBe(404);
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/999999/publish`)).status).toBe(404);
    await f.eventOf('scheduling.session.concluded', (d) => d.id === past.id);
  });

  it('clones a session with its parts (201), unpublished and without registrations', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { start_at: '2032-05-05T08:00:00Z', end_at: '2032-05-05T16:00:00Z', location: 'Hall', seats: 4, notes: 'x' });
    await f.createSession(course.id, { start_at: '2032-05-05T08:00:00Z' }, { parent_id: session.id });
    await f.admin.post(`${SESSIONS_OF(course.id)}/${session.id}/publish`);
    const res = await f.admin.post(`${SESSIONS_OF(course.id)}/${session.id}/clone`);
    expect(res.status).toBe(201);
    const copy = res.body.sessions[0];
    expect(copy.id).not.toBe(session.id);
    expect(copy).toMatchObject({ start_at: session.start_at, end_at: session.end_at, location: 'Hall', seats: 4, notes: 'x', parts_count: 1, published_at: null, registered_count: 0 });
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/999999/clone`)).status).toBe(404);
  });

  it('adds no part to a concluded session, by create or by clone (400): nothing could conclude it', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { start_at: '2021-06-01T09:00:00Z' });
    const part = await f.createSession(course.id, { start_at: '2021-06-01T09:00:00Z' }, { parent_id: session.id });
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/${session.id}/conclude`)).status).toBe(200);
    const created = await f.admin.post(SESSIONS_OF(course.id), { parent_id: session.id, sessions: [{ start_at: '2021-06-01T13:00:00Z' }] });
    expect([created.status, created.body.code]).toEqual([400, 'SESSION_CONCLUDED']);
    const cloned = await f.admin.post(`${SESSIONS_OF(course.id)}/${part.id}/clone`);
    expect([cloned.status, cloned.body.code]).toEqual([400, 'SESSION_CONCLUDED']);
    const parts = (await f.admin.get(`${SESSIONS_OF(course.id)}?parent_id=${session.id}`)).body.sessions;
    expect(parts.map((p: { id: number; concluded_at: string | null }) => [p.id, typeof p.concluded_at])).toEqual([[part.id, 'string']]);
    // The concluded session itself still copies: a new, open session with open parts.
    const copy = await f.admin.post(`${SESSIONS_OF(course.id)}/${session.id}/clone`);
    expect([copy.status, copy.body.sessions?.[0].concluded_at, copy.body.sessions?.[0].parts_count]).toEqual([201, null, 1]);
  });

  it("answers 404 for another account's sessions", async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id);
    expect((await f.stranger.get(SESSIONS_OF(course.id))).status).toBe(404);
    expect((await f.stranger.get(`${SESSIONS_OF(course.id)}/${session.id}`)).status).toBe(404);
    expect((await f.stranger.post(SESSIONS_OF(course.id), { sessions: [{}] })).status).toBe(404);
    for (const action of ['conclude', 'publish', 'clone']) expect((await f.stranger.post(`${SESSIONS_OF(course.id)}/${session.id}/${action}`)).status).toBe(404);
    expect((await f.stranger.delete(`${SESSIONS_OF(course.id)}/${session.id}`)).status).toBe(404);
    expect((await f.admin.get(SESSIONS_OF(course.id))).body.sessions).toHaveLength(1);
  });
});
