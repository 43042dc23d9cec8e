import { LIVE_COURSES, type SchedulingFixture, startSchedulingFixture } from './scheduling-fixture.js';

describe('live courses and their learners, end to end', () => {
  let f: SchedulingFixture;
  const learnersOf = (id: string) => `${LIVE_COURSES}/${id}/learners`;

  beforeAll(async () => {
    f = await startSchedulingFixture('e2e-live-courses');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates (201), shows, updates with PATCH and PUT, and answers every LiveCourseResponse field', async () => {
    const res = await f.author.post(LIVE_COURSES, { live_courses: [{ title: '  First aid  ', description: 'Hands on', external_course_id: 'FA-1', has_certificate: true }, {}] });
    expect(res.status).toBe(201);
    const [course, untitled] = res.body.live_courses;
    expect(course).toEqual({
      id: expect.stringMatching(/^\d+$/),
      title: 'First aid',
      author_id: String(f.cast.author.userId),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      description: 'Hands on',
      sessions_count: 0,
      enrollments_count: 0,
      is_published: false,
      external_course_id: 'FA-1',
      has_certificate: true,
      expires: false,
      default_days_until_expiration: null,
      auto_re_enroll: false,
      re_enrollment_period: null,
      open_enrollment: false,
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      enroll_url: `/enroll/live_courses/${course.uuid}`,
    });
    expect(untitled.title).toBe('Untitled live course');
    const shown = await f.admin.get(`${LIVE_COURSES}/${course.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.live_courses).toEqual([course]);
    const patched = await f.admin.patch(`${LIVE_COURSES}/${course.id}`, { live_course: { title: 'CPR', expires: true, default_days_until_expiration: 365 } });
    expect(patched.status).toBe(200);
    expect(patched.body.live_courses[0]).toMatchObject({ title: 'CPR', description: 'Hands on', expires: true, default_days_until_expiration: 365 });
    const put = await f.admin.put(`${LIVE_COURSES}/${course.id}`, { live_course: { description: null } });
    expect(put.status).toBe(200);
    expect(put.body.live_courses[0]).toMatchObject({ title: 'CPR', description: null });
    await f.eventOf('scheduling.live_course.created', (d) => d.id === Number(course.id));
    await f.eventOf('scheduling.live_course.updated', (d) => d.id === Number(course.id) && d.title === 'CPR');
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const course = await f.createCourse({ title: 'Stable' });
    for (const body of [{}, { live_courses: [] }, { live_courses: [{ title: ' ' }] }, { live_courses: [{ seats: 3 }] }, { live_courses: [{ has_certificate: 'yes' }] }]) {
      expect((await f.admin.post(LIVE_COURSES, body)).status).toBe(400);
    }
    for (const body of [{}, { live_course: { title: true } }, { live_course: { has_certificate: null } }, { title: 'x' }]) {
      expect((await f.admin.patch(`${LIVE_COURSES}/${course.id}`, body)).status).toBe(400);
    }
    expect((await f.admin.get(`${LIVE_COURSES}?includes[]=nope`)).status).toBe(400);
    expect((await f.admin.get(`${LIVE_COURSES}?created_after=yesterday`)).status).toBe(400);
    // Year 0000 is valid RFC 3339 but not a year Postgres reads as written.
    expect((await f.admin.get(`${LIVE_COURSES}?created_after=0000-01-01T00:00:00Z`)).status).toBe(400);
    expect((await f.admin.get(`${LIVE_COURSES}?created_after=${encodeURIComponent('9999-12-31T23:59:59.999Z')}`)).body.live_courses).toEqual([]);
    expect((await f.admin.get(`${LIVE_COURSES}/${course.id}`)).body.live_courses[0].title).toBe('Stable');
  });

  it('lists newest first with includes[], search, date filters, paging and the deleted flags', async () => {
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const a = await f.createCourse({ title: 'Listing alpha' });
    const b = await f.createCourse({ title: 'Listing beta_%' });
    const list = await f.admin.get(`${LIVE_COURSES}?search=listing&created_after=${encodeURIComponent(before)}`);
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.body.live_courses.map((c: { id: string }) => c.id)).toEqual([b.id, a.id]);
    // The base fields only, without includes.
    expect(list.body.live_courses[0]).not.toHaveProperty('expires');
    expect(list.body.live_courses[0]).not.toHaveProperty('uuid');
    expect(list.body.live_courses[0]).not.toHaveProperty('deleted_at');
    expect(list.body.live_courses[0]).not.toHaveProperty('enrollments');
    const [learner] = await f.enrolledLearners(a.id, 1);
    const full = await f.admin.get(`${LIVE_COURSES}?search=listing&includes[]=expiration&includes[]=enrollment_profiles&includes[]=enrollments&per_page=1&page=2`);
    expect(full.body.live_courses).toHaveLength(1);
    expect(full.body.live_courses[0]).toMatchObject({ id: a.id, expires: false, open_enrollment: false, uuid: a.uuid, enrollments_count: 1 });
    expect(full.body.live_courses[0].enrollments).toEqual([expect.objectContaining({ user_id: String(learner.userId), live_course_id: a.id, state: 'active' })]);
    expect((await f.admin.get(`${LIVE_COURSES}?search=${encodeURIComponent('beta_%')}`)).body.live_courses.map((c: { id: string }) => c.id)).toEqual([b.id]);
    expect((await f.admin.get(`${LIVE_COURSES}?search=listing&created_before=${encodeURIComponent(before)}`)).body.live_courses).toEqual([]);

    expect((await f.admin.delete(`${LIVE_COURSES}/${b.id}`)).status).toBe(204);
    expect((await f.admin.get(`${LIVE_COURSES}?search=listing`)).body.live_courses.map((c: { id: string }) => c.id)).toEqual([a.id]);
    const deleted = await f.admin.get(`${LIVE_COURSES}?search=listing&only_deleted=true`);
    expect(deleted.body.live_courses).toEqual([expect.objectContaining({ id: b.id, deleted_at: expect.any(String) })]);
    const withDeleted = await f.admin.get(`${LIVE_COURSES}?search=listing&with_deleted=true`);
    expect(withDeleted.body.live_courses.map((c: { id: string; deleted_at: string | null }) => [c.id, c.deleted_at !== null])).toEqual([[b.id, true], [a.id, false]]);
    const since = await f.admin.get(`${LIVE_COURSES}?only_deleted=true&deleted_after=${encodeURIComponent(before)}`);
    expect(since.body.live_courses.map((c: { id: string }) => c.id)).toContain(b.id);
    const sinceAlone = await f.admin.get(`${LIVE_COURSES}?search=listing&deleted_after=${encodeURIComponent(before)}`);
    expect(sinceAlone.body.live_courses).toEqual([expect.objectContaining({ id: b.id, deleted_at: expect.any(String) })]);
    // Deleted: unknown to every other route.
    expect((await f.admin.get(`${LIVE_COURSES}/${b.id}`)).status).toBe(404);
    expect((await f.admin.patch(`${LIVE_COURSES}/${b.id}`, { live_course: { title: 'x' } })).status).toBe(404);
    expect((await f.admin.delete(`${LIVE_COURSES}/${b.id}`)).status).toBe(404);
    await f.eventOf('scheduling.live_course.deleted', (d) => d.id === Number(b.id));
  });

  it('enrolls learners (201), lists them, removes one (204) and refuses bad enrollments with 400', async () => {
    const course = await f.createCourse({ title: 'Enrolling' });
    const users = [await f.t.factory.user(f.cast.accountId, ['learner']), await f.t.factory.user(f.cast.accountId, ['learner'])];
    const enrolled = await f.author.post(learnersOf(course.id), { learners: users.map((u) => ({ user_id: u.userId })) });
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.learners).toEqual(
      users.map((u) => ({
        id: expect.stringMatching(/^\d+$/),
        live_course_id: course.id,
        user_id: String(u.userId),
        name: expect.any(String),
        email: `${u.uid}@example.test`,
        avatar_url: null,
        state: 'active',
        completed_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      })),
    );
    const list = await f.admin.get(learnersOf(course.id));
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect((await f.admin.get(`${LIVE_COURSES}/${course.id}`)).body.live_courses[0].enrollments_count).toBe(2);
    for (const [learners, code] of [
      [[{ user_id: users[0].userId }], 'enrolled in this live course already'],
      [[{ user_id: 999999 }], 'no such user'],
      [[{ user_id: f.cast.stranger.userId }], 'no such user'],
    ] as const) {
      const res = await f.admin.post(learnersOf(course.id), { learners });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain(code);
    }
    for (const body of [{}, { learners: [] }, { learners: [{ user_id: 'x' }] }]) expect((await f.admin.post(learnersOf(course.id), body)).status).toBe(400);
    const first = enrolled.body.learners[0];
    expect((await f.admin.delete(`${learnersOf(course.id)}/${first.id}`)).status).toBe(204);
    expect((await f.admin.delete(`${learnersOf(course.id)}/${first.id}`)).status).toBe(404);
    const after = await f.admin.get(learnersOf(course.id));
    expect(after.body.learners.map((l: { user_id: string }) => l.user_id)).toEqual([String(users[1].userId)]);
    await f.eventOf('scheduling.live_course_enrollment.created', (d) => d.live_course_id === Number(course.id) && d.user_id === users[0].userId);
    await f.eventOf('scheduling.live_course_enrollment.removed', (d) => d.enrollment_id === Number(first.id));
    // Another course's enrollment id through this course is unknown.
    const other = await f.createCourse({ title: 'Other' });
    expect((await f.admin.delete(`${learnersOf(other.id)}/${enrolled.body.learners[1].id}`)).status).toBe(404);
    expect((await f.admin.get(learnersOf('999999'))).status).toBe(404);
  });

  it("answers 404 for another account's live course and its learners, and 403 to a learner", async () => {
    const course = await f.createCourse({ title: 'Private' });
    expect((await f.stranger.get(`${LIVE_COURSES}/${course.id}`)).status).toBe(404);
    expect((await f.stranger.patch(`${LIVE_COURSES}/${course.id}`, { live_course: { title: 'Mine' } })).status).toBe(404);
    expect((await f.stranger.delete(`${LIVE_COURSES}/${course.id}`)).status).toBe(404);
    expect((await f.stranger.get(learnersOf(course.id))).status).toBe(404);
    expect((await f.stranger.post(learnersOf(course.id), { learners: [{ user_id: f.cast.stranger.userId }] })).status).toBe(404);
    expect((await f.stranger.get(LIVE_COURSES)).body.live_courses.map((c: { id: string }) => c.id)).not.toContain(course.id);
    expect((await f.learner.get(LIVE_COURSES)).status).toBe(403);
    expect((await f.admin.get(`${LIVE_COURSES}/${course.id}`)).body.live_courses[0].title).toBe('Private');
  });
});
