import { eventually, holdingLock } from '@lms/testing';
import { COURSES, PROGRAMS, TASKS } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

const openTask = (key: string | number) => `/api/learner/open_tasks/${key}/enrollment`;
const openProgram = (key: string | number) => `/api/learner/open_programs/${key}/enrollment`;
const openCourse = (key: string | number) => `/api/learner/open_courses/${key}/enrollment`;

describe('open enrollment, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-open-enrollment');
  });
  afterAll(async () => {
    await f?.close();
  });

  async function task(fields: Record<string, unknown>) {
    const res = await f.author.post(TASKS, { tasks: [{ title: 'Shadow a shift', default_days_until_due: 3, ...fields }] });
    if (res.status !== 201) throw new Error(`task: ${res.status} ${res.text}`);
    const [{ uuid }] = await f.t.db.query<{ uuid: string }>('SELECT uuid FROM catalog.tasks WHERE id = $1', [Number(res.body.tasks[0].id)]);
    return { ...res.body.tasks[0], uuid };
  }

  async function program(fields: Record<string, unknown>) {
    const res = await f.author.post(PROGRAMS, { programs: [{ title: 'Open path', ...fields }] });
    if (res.status !== 201) throw new Error(`program: ${res.status} ${res.text}`);
    return res.body.programs[0];
  }

  it('enrolls the caller in an open task (201) by id or uuid, once; GET answers their enrollment only', async () => {
    const t = await task({ is_published: true, open_enrollment: true });
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    expect((await api.get(openTask(t.id))).body).toEqual({ meta: {}, enrollments: [] });
    const res = await api.post(openTask(t.uuid));
    expect(res.status).toBe(201);
    expect(res.body.enrollments).toEqual([
      {
        id: expect.any(Number), type: 'Task', item_id: Number(t.id), title: 'Shadow a shift', state: 'assigned', required: false, end_at: expect.any(String),
        completed_at: null, program_id: null, program_title: null, created_at: expect.any(String),
      },
    ]);
    expect(Date.parse(res.body.enrollments[0].end_at)).toBeGreaterThan(Date.now() + 2.9 * 86_400_000);
    const again = await api.post(openTask(t.id));
    expect([again.status, again.body.code]).toEqual([400, 'ALREADY_ENROLLED']);
    expect((await api.get(openTask(t.uuid))).body.enrollments).toEqual(res.body.enrollments);
    // Another learner sees none of it, and enrolls on their own.
    const other = f.admin.as((await f.newLearner()).token);
    expect((await other.get(openTask(t.id))).body.enrollments).toEqual([]);
    expect((await other.post(openTask(t.id))).status).toBe(201);
    expect((await api.get(openTask(t.id))).body.enrollments).toHaveLength(1);
    // The item is the learner's to leave (optional).
    expect((await api.delete(`/api/learner/learning_items/${res.body.enrollments[0].id}`)).status).toBe(204);
  });

  it('refuses a task that is not open, unpublished or unknown, and ids that are neither an id nor a uuid', async () => {
    const closed = await task({ is_published: true });
    const draft = await task({ is_published: false, open_enrollment: true });
    for (const key of [closed.id, closed.uuid, draft.id]) {
      const res = await f.learner.post(openTask(key));
      expect([key, res.status, res.body.code]).toEqual([key, 400, 'NOT_OPEN_FOR_ENROLLMENT']);
    }
    expect((await f.learner.post(openTask(999999))).status).toBe(404);
    expect((await f.learner.post(openTask('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    expect((await f.learner.get(openTask(999999))).status).toBe(404);
    for (const key of ['abc', '0', '-1', '1.5']) expect([key, (await f.learner.post(openTask(key))).status]).toEqual([key, 400]);
    const open = await task({ is_published: true, open_enrollment: true });
    expect((await f.stranger.post(openTask(open.id))).status).toBe(404);
    expect((await f.stranger.post(openTask(open.uuid))).status).toBe(404);
    expect((await f.admin.as(undefined).post(openTask(open.id))).status).toBe(401);
    expect((await f.learner.get(openTask(closed.id))).body.enrollments).toEqual([]);
  });

  it("enrolls the caller in an open course (201) at its enroll_url, by id or uuid, once; refuses a course not open (400), archived or unknown (404)", async () => {
    const course = await f.publishedCourse({ title: 'Open course', open_enrollment: true, default_days_until_due: 5 });
    const profile = (await f.admin.get(`${COURSES}?includes[]=enrollment_profiles&search=Open%20course`)).body.course_templates[0];
    expect(profile).toMatchObject({ id: course.id, open_enrollment: true, enroll_url: `/api/learner/open_courses/${profile.uuid}/enrollment` });
    expect((await f.learner.get(`/api/mobile/learner/courses/${course.id}`)).body.enrollment_profile.enroll_url).toBe(profile.enroll_url);
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    expect((await api.get(openCourse(course.id))).body).toEqual({ meta: {}, enrollments: [] });
    const res = await api.post(profile.enroll_url);
    expect(res.status).toBe(201);
    expect(res.body.enrollments).toEqual([
      {
        id: expect.any(Number), type: 'CourseTemplate', item_id: Number(course.id), title: 'Open course', state: 'assigned', required: false, end_at: expect.any(String),
        completed_at: null, program_id: null, program_title: null, created_at: expect.any(String),
      },
    ]);
    expect(Date.parse(res.body.enrollments[0].end_at)).toBeGreaterThan(Date.now() + 4.9 * 86_400_000);
    const again = await api.post(openCourse(course.id));
    expect([again.status, again.body.code]).toEqual([400, 'ALREADY_ENROLLED']);
    expect((await api.get(openCourse(profile.uuid))).body.enrollments).toEqual(res.body.enrollments);
    expect((await api.get(`/api/learner/courses/${res.body.enrollments[0].id}`)).body.courses[0]).toMatchObject({ title: 'Open course', required: false, state: 'assigned' });
    expect((await f.learner.get(openCourse(course.id))).body.enrollments).toEqual([]);

    // Not open (the default), or taken away from learners: a 400; turning it on applies at once, with nothing to publish.
    const closed = await f.publishedCourse({ title: 'Closed course' });
    expect((await f.learner.post(openCourse(closed.id))).body.code).toBe('NOT_OPEN_FOR_ENROLLMENT');
    const opened = await f.admin.patch(`${COURSES}/${closed.id}`, { course_template: { open_enrollment: true } });
    expect([opened.status, opened.body.course_templates[0].has_unpublished_changes]).toEqual([200, false]);
    expect((await f.learner.post(openCourse(closed.id))).status).toBe(201);
    const draft = await f.createCourse({ open_enrollment: true });
    expect((await f.learner.post(openCourse(draft.id))).body.code).toBe('NOT_OPEN_FOR_ENROLLMENT');
    expect((await f.admin.delete(`${COURSES}/${course.id}`)).status).toBe(204);
    for (const key of [course.id, profile.uuid, 999999]) {
      const res = await f.learner.post(openCourse(key));
      expect([key, res.status, res.body.code]).toEqual([key, 404, 'COURSE_TEMPLATE_NOT_FOUND']);
    }
    expect((await f.stranger.post(openCourse(closed.id))).status).toBe(404);
  });

  it("gives a course's self-made enrollment the due date as last published, not an author's draft", async () => {
    const course = await f.publishedCourse({ title: 'Open, dated', open_enrollment: true, default_days_until_due: 5 });
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { default_days_until_due: 60 } })).status).toBe(200);
    const res = await f.admin.as((await f.newLearner()).token).post(openCourse(course.id));
    expect(res.status).toBe(201);
    expect(Math.round((Date.parse(res.body.enrollments[0].end_at) - Date.now()) / 86_400_000)).toBe(5);
  });

  it("enrolls the caller in an open program's published courses (201) through its enroll_url; again is a 400", async () => {
    const [a, b] = [await f.publishedCourse({ title: 'Alpha' }), await f.publishedCourse({ title: 'Beta' })];
    const p = await program({ is_published: true, open_enrollment: true, course_template_ids: [Number(a.id), Number(b.id)] });
    expect(p.enroll_url).toBe(`/api/learner/open_programs/${p.uuid}/enrollment`);
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const res = await api.post(p.enroll_url);
    expect(res.status).toBe(201);
    expect(res.body.enrollments.map((e: Record<string, unknown>) => [e.type, e.title, e.program_id, e.program_title, e.required])).toEqual([
      ['CourseTemplate', 'Alpha', Number(p.id), 'Open path', false],
      ['CourseTemplate', 'Beta', Number(p.id), 'Open path', false],
    ]);
    const again = await api.post(openProgram(p.id));
    expect([again.status, again.body.code]).toEqual([400, 'ALREADY_ENROLLED']);
    expect((await api.get(openProgram(p.uuid))).body.enrollments).toEqual(res.body.enrollments);
    expect((await f.learner.get(openProgram(p.id))).body.enrollments).toEqual([]);
    // The learner courses show the program.
    const courses = (await api.get('/api/learner/courses')).body.courses;
    expect(courses.map((c: Record<string, unknown>) => [c.title, c.program_title, c.index_of_program])).toEqual([
      ['Alpha', 'Open path', 1],
      ['Beta', 'Open path', 2],
    ]);
  });

  it("answers an open program's enrollments with its courses' titles as last published, not an author's draft", async () => {
    const course = await f.publishedCourse({ title: 'Published' });
    const p = await program({ is_published: true, open_enrollment: true, course_template_ids: [Number(course.id)] });
    expect((await f.admin.patch(`/api/author/course_templates/${course.id}`, { course_template: { title: 'Draft' } })).status).toBe(200);
    const api = f.admin.as((await f.newLearner()).token);
    const res = await api.post(p.enroll_url);
    expect([res.status, res.body.enrollments.map((e: Record<string, unknown>) => e.title)]).toEqual([201, ['Published']]);
    expect((await api.get(openProgram(p.id))).body.enrollments.map((e: Record<string, unknown>) => e.title)).toEqual(['Published']);
  });

  it('refuses a program that is not open or unpublished (400), unknown ones (404), and another account (404)', async () => {
    const course = await f.publishedCourse();
    const closed = await program({ is_published: true, course_template_ids: [Number(course.id)] });
    const draft = await program({ is_published: false, open_enrollment: true, course_template_ids: [Number(course.id)] });
    const empty = await program({ is_published: true, open_enrollment: true });
    for (const p of [closed, draft, empty]) {
      const res = await f.learner.post(openProgram(p.uuid));
      expect([p.title, res.status, res.body.code]).toEqual([p.title, 400, 'NOT_OPEN_FOR_ENROLLMENT']);
    }
    expect((await f.learner.post(openProgram(999999))).status).toBe(404);
    expect((await f.learner.get(openProgram(999999))).status).toBe(404);
    const open = await program({ is_published: true, open_enrollment: true, course_template_ids: [Number(course.id)] });
    expect((await f.stranger.post(openProgram(open.uuid))).status).toBe(404);
    expect((await f.learner.get(openProgram(closed.id))).body.enrollments).toEqual([]);
  });

  it('enrolls nobody in a program whose open enrollment is turned off while the request waits for the program (400)', async () => {
    const course = await f.publishedCourse({ title: 'Closing' });
    const p = await program({ is_published: true, open_enrollment: true, course_template_ids: [Number(course.id)] });
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    // An author's change of the program, not committed yet, holds its row: the request reads it open, then waits for it.
    const res = await holdingLock(f.t.db.url, 'UPDATE catalog.programs SET open_enrollment = false WHERE id = $1', [Number(p.id)], async (held) => {
      const enrolling = api.post(p.enroll_url);
      await held.waiters();
      await held.release();
      return enrolling;
    });
    expect([res.status, res.body.code]).toEqual([400, 'NOT_OPEN_FOR_ENROLLMENT']);
    expect((await api.get(openProgram(p.id))).body.enrollments).toEqual([]);
    expect((await api.get('/api/learner/courses')).body.courses).toEqual([]);
  });

  it('answers 404 for a deleted program, by id or uuid, to GET and POST, as for an unknown one', async () => {
    const course = await f.publishedCourse();
    const p = await program({ is_published: true, open_enrollment: true, course_template_ids: [Number(course.id)] });
    const api = f.admin.as((await f.newLearner()).token);
    expect((await api.post(p.enroll_url)).status).toBe(201);
    expect((await f.author.delete(`${PROGRAMS}/${p.id}`)).status).toBe(204);
    for (const key of [p.id, p.uuid]) {
      const [read, enroll] = [await api.get(openProgram(key)), await f.learner.post(openProgram(key))];
      expect([key, read.status, read.body.code, enroll.status, enroll.body.code]).toEqual([key, 404, 'PROGRAM_NOT_FOUND', 404, 'PROGRAM_NOT_FOUND']);
    }
  });

  it('concurrent requests of one learner enroll once', async () => {
    const t = await task({ is_published: true, open_enrollment: true });
    const api = f.admin.as((await f.newLearner()).token);
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => api.post(openTask(t.id))))).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    expect((await api.get(openTask(t.id))).body.enrollments).toHaveLength(1);
  });

  it("shows a self-made task enrollment's due date among the learner's figures, as every other enrollment's", async () => {
    const t = await task({ is_published: true, open_enrollment: true });
    const user = await f.newLearner();
    const group = (await f.admin.post('/api/author/groups', { groups: [{ name: `Open ${Date.now()}` }] })).body.groups[0].id as string;
    expect((await f.admin.post(`/api/author/groups/${group}/learners`, { users: [{ user_id: user.userId }] })).status).toBe(201);
    const res = await f.admin.as(user.token).post(openTask(t.id));
    expect(res.status).toBe(201);
    // Identity learns of the enrollment through its event only.
    const nextDue = async () => (await f.admin.get(`/api/author/groups/${group}/learners`)).body.learners[0].next_due_date as string | null;
    expect(await eventually(async () => (await nextDue()) ?? undefined)).toBe(res.body.enrollments[0].end_at);
  });

  // The 401 of a deleted caller's next request: the gateway's own, with its challenge.
  const REVOKED = [401, 'UNAUTHENTICATED', 'Bearer realm="learning-service", error="invalid_token"'];

  it.each([
    ['task', 'tasks'],
    ['program', 'programs'],
  ] as const)('enrolls nobody when the learner is deleted while their %s request waits (401, as their revoked token)', async (kind, table) => {
    const item = kind === 'task' ? await task({ is_published: true, open_enrollment: true }) : await program({ is_published: true, open_enrollment: true, course_template_ids: [Number((await f.publishedCourse()).id)] });
    const user = await f.newLearner();
    const res = await f.enrollingHeld(item.id, () => f.admin.as(user.token).post((kind === 'task' ? openTask : openProgram)(item.id)), async () => {
      expect((await f.admin.delete(`/api/admin/users/${user.userId}`)).status).toBe(204);
      await f.identityEventsHandled('catalog-enrollments-user-deleted', 'identity.user.deleted', 'user_id', user.userId, 1);
    }, table);
    expect([res.status, res.body.code, res.headers.get('www-authenticate')]).toEqual(REVOKED);
    const live = await f.t.db.query('SELECT id FROM catalog.enrollments WHERE user_id = $1 AND deleted_at IS NULL', [user.userId]);
    expect(live).toEqual([]);
    expect(await f.t.db.query('SELECT id FROM catalog.program_enrollments WHERE user_id = $1 AND deleted_at IS NULL', [user.userId])).toEqual([]);
    // Their next request meets the gateway's 401, which says the same.
    const next = await f.admin.as(user.token).post(openTask(item.id));
    expect([next.status, next.body.code, next.headers.get('www-authenticate')]).toEqual(REVOKED);
  });
});
