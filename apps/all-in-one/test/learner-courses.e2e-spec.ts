import { eventually, holdingLock } from '@lms/testing';
import { COURSES, PROGRAMS } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

const LEARNER_COURSES = '/api/learner/courses';
const ITEMS = '/api/learner/learning_items';
const HOUR = 3_600_000;

describe('learner courses and learning items, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-learner-courses');
  });
  afterAll(async () => {
    await f?.close();
  });

  /** A published course with two published slides (5 and 7 minutes, one attachment). */
  async function courseWithSlides(fields: Record<string, unknown> = {}) {
    const course = await f.createCourse({ title: 'Safety basics', open_book: true, passing_threshold: 80, has_certificate: true, ...fields });
    const slides = [
      { draft_attributes: { title: 'One', allow_comments: true }, estimated_time: 5, attachments: [{ name: 'a.pdf' }] },
      { draft_attributes: { title: 'Two', allow_comments: true }, estimated_time: 7 },
    ];
    const added = await f.admin.post(`${COURSES}/${course.id}/slides`, { slides });
    if (added.status !== 201) throw new Error(`slides: ${added.status} ${added.text}`);
    const published = await f.admin.post(`${COURSES}/${course.id}/publish`, {});
    if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
    return course;
  }

  async function learnerIn(courseId: string, entry: Record<string, unknown> = {}) {
    const user = await f.newLearner();
    const enrollment = (await f.enroll(courseId, [{ user_id: user.userId, ...entry }])).enrollments[0];
    return { user, api: f.admin.as(user.token), enrollment };
  }

  it('lists the caller\'s courses (deprecated: Deprecation and Link headers) with every LearnerCourseResponse field', async () => {
    const course = await courseWithSlides();
    const { api, enrollment } = await learnerIn(course.id, { required: false, end_at: '2031-05-01T10:00:00Z' });
    await learnerIn(course.id); // someone else's enrollment in the same course

    const res = await api.get(LEARNER_COURSES);
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(res.headers.get('link')).toBe('</api/learner/learning_items>; rel="successor-version"');
    expect(res.body).toEqual({
      meta: {},
      courses: [
        {
          id: enrollment.id, is_enrolled: true, progress: 0, slide_total: 2, time_remaining: 12, location: null, sessions_count: null, next_session_start_at: null,
          deleted_at: null, program_title: null, index_of_program: null, program_course_count: null, open_book: true, completed_at: null,
          end_at: '2031-05-01T10:00:00.000Z', estimated_time: 12, passing_threshold: 80, required: false, score: null, state: 'assigned', title: 'Safety basics',
          has_certificate: true, course_type: 'native', attachments_count: 1, course_template_id: Number(course.id), live_course_id: null, blocked_by: null,
        },
      ],
    });
    // The show answers the same record; the OpenAPI document marks the list deprecated.
    expect((await api.get(`${LEARNER_COURSES}/${enrollment.id}`)).body.courses).toEqual(res.body.courses);
    const openapi = (await f.admin.get('/api/openapi.json')).body;
    expect(openapi.paths['/api/learner/courses'].get.deprecated).toBe(true);
    expect(openapi.paths['/api/learner/courses/{id}'].get.deprecated).toBeUndefined();
  });

  it("answers 404 for another learner's enrollment, an unknown id and another account's, and changes nothing", async () => {
    const course = await courseWithSlides();
    const mine = await learnerIn(course.id, { required: false });
    const theirs = await learnerIn(course.id, { required: false });
    for (const [method, path] of [
      ['get', `${LEARNER_COURSES}/${theirs.enrollment.id}`],
      ['post', `${LEARNER_COURSES}/${theirs.enrollment.id}/complete`],
      ['delete', `${LEARNER_COURSES}/${theirs.enrollment.id}`],
      ['get', `${LEARNER_COURSES}/${theirs.enrollment.id}/external_info`],
      ['get', `${ITEMS}/${theirs.enrollment.id}`],
      ['delete', `${ITEMS}/${theirs.enrollment.id}`],
      ['get', `${LEARNER_COURSES}/999999`],
    ] as const) {
      const res = await mine.api[method](path);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'LEARNER_COURSE_NOT_FOUND']);
    }
    expect((await f.stranger.get(`${LEARNER_COURSES}/${mine.enrollment.id}`)).status).toBe(404);
    expect((await f.stranger.get(`${LEARNER_COURSES}/${course.id}/preview`)).status).toBe(404);
    expect((await theirs.api.get(`${LEARNER_COURSES}/${theirs.enrollment.id}`)).body.courses[0]).toMatchObject({ state: 'assigned' });
    expect((await f.learner.get(`${LEARNER_COURSES}/abc`)).status).toBe(400);
    expect((await f.admin.get(LEARNER_COURSES)).body.courses).toEqual([]);
    expect((await f.admin.as(undefined).get(LEARNER_COURSES)).status).toBe(401);
  });

  it('previews a published course with is_enrolled false, or the caller\'s enrollment in it; 404 for a draft', async () => {
    const course = await courseWithSlides({ title: 'Preview me' });
    const draft = await f.createCourse();
    const outsider = await f.newLearner();
    const preview = await f.admin.as(outsider.token).get(`${LEARNER_COURSES}/${course.id}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.courses[0]).toMatchObject({ id: Number(course.id), is_enrolled: false, state: 'not_enrolled', title: 'Preview me', slide_total: 2, course_template_id: Number(course.id) });
    const { api, enrollment } = await learnerIn(course.id);
    expect((await api.get(`${LEARNER_COURSES}/${course.id}/preview`)).body.courses[0]).toMatchObject({ id: enrollment.id, is_enrolled: true });
    expect((await api.get(`${LEARNER_COURSES}/${draft.id}/preview`)).status).toBe(404);
  });

  it('takes an unpublished course away from its learners, as its slides are: an open enrollment is a 404 everywhere until it is published again; a completion stays, as history', async () => {
    const course = await courseWithSlides({ title: 'Taken away' });
    const open = await learnerIn(course.id, { required: false });
    const done = await learnerIn(course.id, { required: false });
    expect((await done.api.post(`${LEARNER_COURSES}/${done.enrollment.id}/complete`)).status).toBe(200);
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { is_published: false } })).status).toBe(200);

    expect((await open.api.get(LEARNER_COURSES)).body.courses).toEqual([]);
    expect((await open.api.get(ITEMS)).body.learning_items).toEqual([]);
    for (const [method, path, code] of [
      ['get', `${LEARNER_COURSES}/${open.enrollment.id}`, 'LEARNER_COURSE_NOT_FOUND'],
      ['post', `${LEARNER_COURSES}/${open.enrollment.id}/complete`, 'LEARNER_COURSE_NOT_FOUND'],
      ['delete', `${LEARNER_COURSES}/${open.enrollment.id}`, 'LEARNER_COURSE_NOT_FOUND'],
      ['get', `${LEARNER_COURSES}/${open.enrollment.id}/external_info`, 'LEARNER_COURSE_NOT_FOUND'],
      ['get', `${ITEMS}/${open.enrollment.id}`, 'LEARNER_COURSE_NOT_FOUND'],
      ['delete', `${ITEMS}/${open.enrollment.id}`, 'LEARNER_COURSE_NOT_FOUND'],
      ['get', `${LEARNER_COURSES}/${course.id}/preview`, 'COURSE_TEMPLATE_NOT_FOUND'],
      ['get', `${LEARNER_COURSES}/${course.id}/slides`, 'COURSE_TEMPLATE_NOT_FOUND'],
    ] as const) {
      const res = await open.api[method](path);
      expect([path, res.status, res.body.code]).toEqual([path, 404, code]);
    }
    // Nothing changed meanwhile: the enrollment waits, live and open, for the course to come back.
    const authorView = (await f.admin.get(`${COURSES}/${course.id}/enrollments`)).body.enrollments.find((e: { id: number }) => e.id === open.enrollment.id);
    expect(authorView).toMatchObject({ state: 'assigned', completed_at: null });

    // The completed learner keeps the record of what they did.
    const history = (await done.api.get(LEARNER_COURSES)).body.courses;
    expect(history).toEqual([expect.objectContaining({ id: done.enrollment.id, state: 'complete', title: 'Taken away' })]);
    expect((await done.api.get(`${LEARNER_COURSES}/${done.enrollment.id}`)).body.courses).toEqual(history);
    expect((await done.api.get(ITEMS)).body.learning_items).toEqual([expect.objectContaining({ id: done.enrollment.id, state: 'complete' })]);

    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { is_published: true } })).status).toBe(200);
    expect((await open.api.get(LEARNER_COURSES)).body.courses).toEqual([expect.objectContaining({ id: open.enrollment.id, state: 'assigned' })]);
    expect((await open.api.post(`${LEARNER_COURSES}/${open.enrollment.id}/complete`)).status).toBe(200);
  });

  it('does not complete an enrollment whose course is unpublished (404) or archived (400) while the completion waits for the course, and changes nothing', async () => {
    /** The completion passes its first look, then waits for the course's row while `change` commits on it. */
    const completingHeld = (api: typeof f.admin, courseId: string, enrollmentId: number, change: string) =>
      holdingLock(f.t.db.url, `UPDATE catalog.course_templates SET ${change} WHERE id = $1`, [Number(courseId)], async (held) => {
        const completing = api.post(`${LEARNER_COURSES}/${enrollmentId}/complete`);
        await held.waiters();
        await held.release('commit');
        return completing;
      });
    const stateOf = async (courseId: string, id: number) => (await f.admin.get(`${COURSES}/${courseId}/enrollments`)).body.enrollments.find((e: { id: number }) => e.id === id);

    const course = await courseWithSlides({ title: 'Unpublished meanwhile' });
    const open = await learnerIn(course.id);
    const unpublished = await completingHeld(open.api, course.id, open.enrollment.id, 'is_published = false');
    expect([unpublished.status, unpublished.body.code]).toEqual([404, 'LEARNER_COURSE_NOT_FOUND']);
    expect(await stateOf(course.id, open.enrollment.id)).toMatchObject({ state: 'assigned', completed_at: null });

    const archivedCourse = await courseWithSlides({ title: 'Archived meanwhile' });
    const other = await learnerIn(archivedCourse.id);
    const archived = await completingHeld(other.api, archivedCourse.id, other.enrollment.id, 'deleted_at = now()');
    expect([archived.status, archived.body.code]).toEqual([400, 'COURSE_TEMPLATE_ARCHIVED']);
    expect(await stateOf(archivedCourse.id, other.enrollment.id)).toMatchObject({ state: 'assigned', completed_at: null });
    // Its enrollment stays listed, with the course's archival, as an archived course's enrollments do.
    expect((await other.api.get(`${LEARNER_COURSES}/${other.enrollment.id}`)).body.courses[0]).toMatchObject({ state: 'assigned', deleted_at: expect.any(String) });
  });

  it('re-enrolls a learner whose completion was in flight when a publish with re_enroll came: the publish waits for it', async () => {
    const course = await courseWithSlides({ title: 'Published while completing' });
    const { api, user, enrollment } = await learnerIn(course.id);
    const res = await holdingLock(f.t.db.url, 'SELECT 1 FROM catalog.enrollments WHERE id = $1 FOR UPDATE', [enrollment.id], async (held) => {
      const completing = api.post(`${LEARNER_COURSES}/${enrollment.id}/complete`);
      await held.waiters();
      // The publish picks the completions to re-enroll. Had it not waited for this one, it would miss it: the
      // completion commits once the row is let go, after the publish.
      const publishing = f.admin.post(`${COURSES}/${course.id}/publish`, { re_enroll: true });
      await Promise.race([publishing, new Promise((resolve) => setTimeout(resolve, 1_500))]);
      await held.release();
      return Promise.all([completing, publishing]);
    });
    expect(res.map((r) => r.status)).toEqual([200, 200]);
    const all = await f.t.db.query<{ id: number; state: string; removal_reason: string | null }>(
      'SELECT id, state, removal_reason FROM catalog.enrollments WHERE enrollable_id = $1 AND user_id = $2 ORDER BY id',
      [Number(course.id), user.userId],
    );
    expect(all).toEqual([
      { id: enrollment.id, state: 'complete', removal_reason: 're_enrolled' },
      { id: expect.any(Number), state: 'assigned', removal_reason: null },
    ]);
  });

  it('answers the 404 of its own path to a completion whose enrollment an author removes while it waits for the row', async () => {
    const course = await courseWithSlides({ title: 'Removed meanwhile' });
    const { api, enrollment } = await learnerIn(course.id);
    // An author's removal, not committed yet, holds the row: the completion finds the enrollment live, then waits.
    const removal = "UPDATE catalog.enrollments SET deleted_at = now(), removal_reason = 'removed' WHERE id = $1";
    const res = await holdingLock(f.t.db.url, removal, [enrollment.id], async (held) => {
      const completing = api.post(`${LEARNER_COURSES}/${enrollment.id}/complete`);
      await held.waiters();
      await held.release();
      return completing;
    });
    expect([res.status, res.body.code]).toEqual([404, 'LEARNER_COURSE_NOT_FOUND']);
  });

  it('does not let a learner leave a course unpublished while the leave waits for the enrollment (404), and changes nothing', async () => {
    const course = await courseWithSlides({ title: 'Unpublished while leaving' });
    const { api, enrollment } = await learnerIn(course.id, { required: false });
    // The leave passes its first look, then waits for the enrollment's row while the unpublish commits.
    const left = await holdingLock(f.t.db.url, 'SELECT 1 FROM catalog.enrollments WHERE id = $1 FOR UPDATE', [enrollment.id], async (held) => {
      const leaving = api.delete(`${LEARNER_COURSES}/${enrollment.id}`);
      await held.waiters();
      expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { is_published: false } })).status).toBe(200);
      await held.release();
      return leaving;
    });
    expect([left.status, left.body?.code]).toEqual([404, 'LEARNER_COURSE_NOT_FOUND']);
    // Published again, the enrollment is back as it was: live, not removed.
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { is_published: true } })).status).toBe(200);
    expect((await api.get(`${LEARNER_COURSES}/${enrollment.id}`)).body.courses[0]).toMatchObject({ id: enrollment.id, state: 'assigned' });
  });

  it('shows the program fields for a course enrolled through a program', async () => {
    const [a, b] = [await courseWithSlides({ title: 'First' }), await courseWithSlides({ title: 'Second' })];
    const program = (await f.author.post(PROGRAMS, { programs: [{ title: 'Path', is_published: true, course_template_ids: [Number(a.id), Number(b.id)] }] })).body.programs[0];
    const user = await f.newLearner();
    const res = await f.author.post(`${PROGRAMS}/${program.id}/enrollments`, { enrollments: [{ user_id: user.userId }] });
    expect(res.status).toBe(201);
    const courses = (await f.admin.as(user.token).get(LEARNER_COURSES)).body.courses;
    expect(courses.map((c: Record<string, unknown>) => [c.title, c.program_title, c.index_of_program, c.program_course_count])).toEqual([
      ['First', 'Path', 1, 2],
      ['Second', 'Path', 2, 2],
    ]);
    const items = (await f.admin.as(user.token).get(ITEMS)).body.learning_items;
    expect(items.map((i: Record<string, unknown>) => [i.type, i.title, i.program_id, i.program_title])).toEqual([
      ['CourseTemplate', 'First', Number(program.id), 'Path'],
      ['CourseTemplate', 'Second', Number(program.id), 'Path'],
    ]);
  });

  it("shows a course's title as last published on every learner view: a draft title reaches none of them until it is published", async () => {
    const course = await courseWithSlides({ title: 'Published title' });
    const { api, enrollment } = await learnerIn(course.id);
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Draft title' } })).status).toBe(200);
    const titles = async () => [
      (await api.get(`${LEARNER_COURSES}/${enrollment.id}`)).body.courses[0].title,
      (await api.get(`${ITEMS}/${enrollment.id}`)).body.learning_items[0].title,
      (await api.get(ITEMS)).body.learning_items.find((i: Record<string, unknown>) => i.id === enrollment.id).title,
      (await api.get(`/api/mobile/learner/courses/${course.id}`)).body.template.title,
    ];
    expect(await titles()).toEqual(Array(4).fill('Published title'));
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    expect(await titles()).toEqual(Array(4).fill('Draft title'));
  });

  it("shows slides' minutes and attachments as last published: a draft change reaches learners with the next publish", async () => {
    const course = await courseWithSlides();
    const { api, enrollment } = await learnerIn(course.id);
    const [one] = (await f.admin.get(`${COURSES}/${course.id}/slides`)).body.slides;
    const edited = await f.admin.patch(`${COURSES}/${course.id}/slides/${one.id}`, { slide: { estimated_time: 30, attachments: [{ name: 'a.pdf' }, { name: 'b.pdf' }] } });
    expect(edited.status).toBe(200);
    const seen = async () => {
      const learnerCourse = (await api.get(`${LEARNER_COURSES}/${enrollment.id}`)).body.courses[0];
      const slide = (await api.get(`/api/learner/courses/${course.id}/slides/${one.id}`)).body.slides[0];
      const mobile = (await api.get(`/api/mobile/learner/courses/${course.id}`)).body;
      return {
        estimated_time: learnerCourse.estimated_time, time_remaining: learnerCourse.time_remaining, attachments_count: learnerCourse.attachments_count,
        slide: [slide.estimated_time, slide.attachments.length], mobile: [mobile.template.estimated_time, mobile.enrollment.time_remaining],
      };
    };
    expect(await seen()).toEqual({ estimated_time: 12, time_remaining: 12, attachments_count: 1, slide: [5, 1], mobile: [12, 12] });
    // Authors see the draft figures meanwhile.
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0]).toMatchObject({ estimated_time: 37, attachments_count: 2, has_unpublished_changes: true });
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    expect(await seen()).toEqual({ estimated_time: 37, time_remaining: 37, attachments_count: 2, slide: [30, 2], mobile: [37, 37] });
  });

  it("counts time_remaining in the minutes of the slides not reached yet, each slide's own", async () => {
    const course = await courseWithSlides(); // slides of 5 and 7 minutes
    const { api, enrollment } = await learnerIn(course.id);
    const [one, two] = (await f.admin.get(`${COURSES}/${course.id}/slides`)).body.slides;
    const figures = async () => {
      const [learner, mobile] = [(await api.get(`${LEARNER_COURSES}/${enrollment.id}`)).body.courses[0], (await api.get(`/api/mobile/learner/courses/${course.id}`)).body];
      return [learner.progress, learner.time_remaining, mobile.enrollment.time_remaining];
    };
    expect(await figures()).toEqual([0, 12, 12]);
    expect((await api.post(`/api/learner/courses/${course.id}/slides/${one.id}/view`)).status).toBe(204);
    // The 7-minute slide is left: not half of 12 (until 2026-11-29 the share of slides done scaled the total).
    expect(await figures()).toEqual([1, 7, 7]);
    expect((await api.post(`/api/learner/courses/${course.id}/slides/${two.id}/view`)).status).toBe(204);
    expect(await figures()).toEqual([2, 0, 0]);
  });

  it('names a deleted program nowhere: learner courses and learning items alike drop its fields, the enrollments stay', async () => {
    const course = await courseWithSlides({ title: 'Kept' });
    const program = (await f.author.post(PROGRAMS, { programs: [{ title: 'Gone path', is_published: true, course_template_ids: [Number(course.id)] }] })).body.programs[0];
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const [enrollment] = (await f.author.post(`${PROGRAMS}/${program.id}/enrollments`, { enrollments: [{ user_id: user.userId }] })).body.enrollments;
    expect((await api.get(`${ITEMS}/${enrollment.id}`)).body.learning_items[0]).toMatchObject({ program_id: Number(program.id), program_title: 'Gone path' });
    expect((await f.author.delete(`${PROGRAMS}/${program.id}`)).status).toBe(204);
    expect((await api.get(`${LEARNER_COURSES}/${enrollment.id}`)).body.courses[0]).toMatchObject({ title: 'Kept', program_title: null, index_of_program: null, program_course_count: null });
    expect((await api.get(`${ITEMS}/${enrollment.id}`)).body.learning_items[0]).toMatchObject({ title: 'Kept', program_id: null, program_title: null });
    expect((await api.get(ITEMS)).body.learning_items.find((i: Record<string, unknown>) => i.id === enrollment.id)).toMatchObject({ program_id: null, program_title: null });
  });

  it('completes the caller\'s course once (200, catalog.enrollment.completed) and answers it as it is the second time', async () => {
    const course = await courseWithSlides();
    const { api, enrollment, user } = await learnerIn(course.id);
    const res = await api.post(`${LEARNER_COURSES}/${enrollment.id}/complete`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ meta: {}, linked: { quizzes: [] }, courses: [expect.objectContaining({ id: enrollment.id, state: 'complete', progress: 2, time_remaining: 0, completed_at: expect.any(String) })] });
    const again = await api.post(`${LEARNER_COURSES}/${enrollment.id}/complete`);
    expect(again.status).toBe(200);
    expect(again.body.courses[0].completed_at).toBe(res.body.courses[0].completed_at);
    await f.eventOf('catalog.enrollment.completed', (d) => d.enrollment_id === enrollment.id && d.user_id === user.userId);
    await eventually(async () => (f.events.filter((e) => e.type === 'catalog.enrollment.completed' && (e.data as { enrollment_id: number }).enrollment_id === enrollment.id).length === 1 ? true : undefined));
  });

  it('leaves an optional course (204) and refuses a required one (400), through courses and learning items alike', async () => {
    const course = await courseWithSlides();
    const optional = await learnerIn(course.id, { required: false });
    expect((await optional.api.delete(`${LEARNER_COURSES}/${optional.enrollment.id}`)).status).toBe(204);
    expect((await optional.api.get(`${LEARNER_COURSES}/${optional.enrollment.id}`)).status).toBe(404);
    expect((await optional.api.get(LEARNER_COURSES)).body.courses).toEqual([]);
    await f.eventOf('catalog.enrollment.removed', (d) => d.id === optional.enrollment.id);

    const required = await learnerIn(course.id);
    const refused = await required.api.delete(`${LEARNER_COURSES}/${required.enrollment.id}`);
    expect([refused.status, refused.body.code]).toEqual([400, 'COURSE_REQUIRED']);
    const refusedItem = await required.api.delete(`${ITEMS}/${required.enrollment.id}`);
    expect([refusedItem.status, refusedItem.body.code]).toEqual([400, 'COURSE_REQUIRED']);
    expect((await required.api.get(`${LEARNER_COURSES}/${required.enrollment.id}`)).status).toBe(200);

    const viaItems = await learnerIn(course.id, { required: false });
    const item = await viaItems.api.get(`${ITEMS}/${viaItems.enrollment.id}`);
    expect(item.status).toBe(200);
    expect(item.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(item.headers.get('link')).toBe('</api/docs#deprecations>; rel="deprecation"');
    expect(item.body.learning_items[0]).toEqual({
      id: viaItems.enrollment.id, type: 'CourseTemplate', item_id: Number(course.id), title: 'Safety basics', state: 'assigned', required: false, end_at: expect.any(String),
      completed_at: null, program_id: null, program_title: null, created_at: expect.any(String),
    });
    expect((await viaItems.api.delete(`${ITEMS}/${viaItems.enrollment.id}`)).status).toBe(204);
    expect((await viaItems.api.get(ITEMS)).body.learning_items).toEqual([]);
  });

  it('answers external_info for an external course, 400 for a native one, 404 for an unknown id', async () => {
    const scorm = await courseWithSlides({ course_type: 'scorm', external_course_id: 'pkg-1' });
    const native = await courseWithSlides();
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const [inScorm] = (await f.enroll(scorm.id, [{ user_id: user.userId }])).enrollments;
    const [inNative] = (await f.enroll(native.id, [{ user_id: user.userId }])).enrollments;
    const info = await api.get(`${LEARNER_COURSES}/${inScorm.id}/external_info`);
    expect(info.status).toBe(200);
    expect(info.body.external_info).toEqual({
      enrollment_id: inScorm.id, course_template_id: Number(scorm.id), course_type: 'scorm', external_course_id: 'pkg-1', third_party_course_id: null,
      external_status: expect.any(String), external_status_message: expect.any(String), available_offline: true, external_learning_standard: 'scorm_1_2',
      external_version: 1, scorm: expect.objectContaining({ player_launch_type: expect.any(String) }),
    });
    const refused = await api.get(`${LEARNER_COURSES}/${inNative.id}/external_info`);
    expect([refused.status, refused.body.code, refused.body.detail]).toEqual([400, 'COURSE_NOT_EXTERNAL', expect.stringContaining('is in a native course')]);
    expect((await api.get(`${LEARNER_COURSES}/999999/external_info`)).status).toBe(404);
  });

  it("answers external_info as last published: an author's draft external_course_id or type reaches no learner", async () => {
    const scorm = await courseWithSlides({ course_type: 'scorm', external_course_id: 'pkg-1' });
    const { api, enrollment } = await learnerIn(scorm.id);
    const before = (await api.get(`${LEARNER_COURSES}/${enrollment.id}/external_info`)).body.external_info;
    expect((await f.admin.patch(`${COURSES}/${scorm.id}`, { course_template: { external_course_id: 'pkg-2-draft', course_type: 'native' } })).status).toBe(200);
    const res = await api.get(`${LEARNER_COURSES}/${enrollment.id}/external_info`);
    expect([res.status, res.body.external_info]).toEqual([200, before]);
    expect(before).toMatchObject({ course_type: 'scorm', external_course_id: 'pkg-1', external_status: 'pending' });
  });

  it('lists live trainings with location, future sessions_count and next_session_start_at from scheduling', async () => {
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const live = (await f.admin.post('/api/author/live_courses', { live_courses: [{ title: 'Fire drill', has_certificate: true }] })).body.live_courses[0];
    const soon = new Date(Date.now() + 48 * HOUR).toISOString();
    const later = new Date(Date.now() + 96 * HOUR).toISOString();
    // A session not scheduled yet has no place among the next ones: its location is not the next session's.
    for (const session of [{ location: 'Not scheduled' }, { start_at: '2020-01-01T10:00:00Z', location: 'Old hall' }, { start_at: later, location: 'Room 2' }, { start_at: soon, location: 'Room 1' }]) {
      const res = await f.admin.post(`/api/author/live_courses/${live.id}/sessions`, { sessions: [session] });
      expect(res.status).toBe(201);
    }
    expect((await f.admin.post(`/api/author/live_courses/${live.id}/learners`, { learners: [{ user_id: user.userId }] })).status).toBe(201);
    const training = await eventually(async () => (await api.get(LEARNER_COURSES)).body.courses.find((c: { live_course_id: number }) => c.live_course_id === Number(live.id)));
    expect(training).toEqual({
      id: expect.any(Number), is_enrolled: true, progress: 0, slide_total: 0, time_remaining: 0, location: 'Room 1', sessions_count: 2,
      next_session_start_at: expect.any(String), deleted_at: null, program_title: null, index_of_program: null, program_course_count: null,
      open_book: false, completed_at: null, end_at: null, estimated_time: 0, passing_threshold: null, required: true, score: null, state: 'active',
      title: 'Fire drill', has_certificate: true, course_type: 'live training', attachments_count: 0, course_template_id: null, live_course_id: Number(live.id), blocked_by: null,
    });
    expect(new Date(training.next_session_start_at).getTime()).toBe(new Date(soon).getTime());
    expect((await api.get(`${LEARNER_COURSES}/${training.id}`)).body.courses[0]).toEqual(training);
    // Another learner cannot see it; it cannot be completed or left by the learner.
    expect((await f.learner.get(`${LEARNER_COURSES}/${training.id}`)).status).toBe(404);
    expect((await api.post(`${LEARNER_COURSES}/${training.id}/complete`)).status).toBe(400);
    expect((await api.delete(`${LEARNER_COURSES}/${training.id}`)).status).toBe(400);
    // Nor has it external information; the answer says what it is.
    const external = await api.get(`${LEARNER_COURSES}/${training.id}/external_info`);
    expect([external.status, external.body.code, external.body.detail]).toEqual([400, 'COURSE_NOT_EXTERNAL', expect.stringContaining('is a live training')]);
    expect(external.body.detail).not.toContain('native');
    const items = (await api.get(ITEMS)).body.learning_items;
    expect(items).toEqual([expect.objectContaining({ id: training.id, type: 'LiveCourse', item_id: Number(live.id), title: 'Fire drill', state: 'active' })]);
    // A deleted live course stays in the learner's list, with its deletion.
    expect((await f.admin.delete(`/api/author/live_courses/${live.id}`)).status).toBe(204);
    const deleted = (await api.get(`${LEARNER_COURSES}/${training.id}`)).body.courses[0];
    expect(deleted).toMatchObject({ title: 'Fire drill', deleted_at: expect.any(String) });
  });
});
