import { COURSES, TASKS } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

const MOBILE = '/api/mobile/learner';

describe('mobile learner items, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-mobile-learner');
  });
  afterAll(async () => {
    await f?.close();
  });

  /** A published course with a cover slide (background image) and a quiz slide. */
  async function coverCourse(fields: Record<string, unknown> = {}) {
    const course = await f.createCourse({ title: 'Mobile course', description: 'On the go', has_certificate: true, ...fields });
    const slides = [
      { draft_attributes: { title: 'Cover', type: 'cover', allow_comments: null, cover_slide_data: { dark: true, heading: 'Hi', backgroundImageUrl: 'https://img.example.test/c.png', backgroundImageStyle: 'cover', backgroundImageOpacity: 0.5 } }, estimated_time: 4 },
      { draft_attributes: { title: 'Check', type: 'quiz', allow_comments: null }, estimated_time: 6 },
    ];
    expect((await f.admin.post(`${COURSES}/${course.id}/slides`, { slides })).status).toBe(201);
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    return course;
  }

  async function task(fields: Record<string, unknown> = {}) {
    const res = await f.author.post(TASKS, { tasks: [{ title: 'Checkpoint', description: 'Do it', is_published: true, requires_approval: true, ...fields }] });
    if (res.status !== 201) throw new Error(`task: ${res.status} ${res.text}`);
    const t = res.body.tasks[0];
    const [{ uuid }] = await f.t.db.query<{ uuid: string }>('SELECT uuid FROM catalog.tasks WHERE id = $1', [Number(t.id)]);
    return { ...t, uuid };
  }

  it('answers course items in the order asked, with the caller\'s enrollment or null, by comma list or course_template_ids[]', async () => {
    const enrolled = await coverCourse();
    const plain = await f.createCourse({ title: 'Plain', is_published: true, course_type: 'scorm' });
    const draft = await f.createCourse({ title: 'Draft' });
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const [e] = (await f.enroll(enrolled.id, [{ user_id: user.userId, required: false, end_at: '2031-01-01T00:00:00Z' }])).enrollments;
    await f.enroll(plain.id, [{ user_id: (await f.newLearner()).userId }]); // someone else's

    const res = await api.get(`${MOBILE}/courses?course_template_ids=${plain.id},${enrolled.id},${draft.id},999999`);
    expect(res.status).toBe(200);
    // An envelope, as every list (spec, Conventions 3: only the single items are objects on their own).
    expect(res.body).toEqual({
      meta: {},
      items: [
        {
          enrollment: null,
          enrollment_profile: { enroll_url: `/api/learner/open_courses/${res.body.items[0].enrollment_profile.uuid}/enrollment`, has_certificate: false, open_enrollment: false, uuid: expect.any(String) },
          template: {
            id: Number(plain.id), course_type: 'scorm', description: null, estimated_time: 0, has_quizzes: false,
            external_info: { available_offline: true, external_learning_standard: 'scorm_1_2', external_version: 1 }, title: 'Plain', launch_url: `/api/learner/courses/${plain.id}/preview`,
          },
        },
        {
          enrollment: { id: e.id, completed_at: null, end_at: '2031-01-01T00:00:00.000Z', learning_item_id: e.id, required: false, score: null, state: 'assigned', time_remaining: 10, blocked_by: null },
          enrollment_profile: { enroll_url: expect.stringMatching(/^\/api\/learner\/open_courses\/[0-9a-f-]+\/enrollment$/), has_certificate: true, open_enrollment: false, uuid: expect.any(String) },
          template: {
            id: Number(enrolled.id), course_type: 'native', description: 'On the go', estimated_time: 10, has_quizzes: true, external_info: null, title: 'Mobile course',
            cover_slide_data: { background_image_url: 'https://img.example.test/c.png' }, launch_url: `/api/learner/courses/${e.id}`,
          },
        },
      ],
    });
    const brackets = await api.get(`${MOBILE}/courses?course_template_ids[]=${plain.id}&course_template_ids[]=${enrolled.id}`);
    expect(brackets.body).toEqual(res.body);
    // Another learner sees the same courses without the enrollment.
    const other = (await f.learner.get(`${MOBILE}/courses?course_template_ids=${enrolled.id}`)).body.items;
    expect(other[0].enrollment).toBeNull();
    // The single item is the same object plus its type.
    const one = await api.get(`${MOBILE}/courses/${enrolled.id}`);
    expect([one.status, one.body]).toEqual([200, { ...res.body.items[1], type: 'CourseTemplate' }]);
    expect((await api.get(`${MOBILE}/courses/${draft.id}`)).status).toBe(404);
    expect((await f.stranger.get(`${MOBILE}/courses/${enrolled.id}`)).status).toBe(404);
    expect((await f.stranger.get(`${MOBILE}/courses?course_template_ids=${enrolled.id}`)).body).toEqual({ meta: {}, items: [] });
  });

  it("shows a course's description as last published, also when it was published without one: a draft description reaches no learner", async () => {
    const api = f.admin.as((await f.newLearner()).token);
    const bare = await f.createCourse({ title: 'No description yet', is_published: true });
    const described = await coverCourse({ description: 'As published' });
    for (const course of [bare, described]) {
      expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { description: 'Draft, not for learners' } })).status).toBe(200);
    }
    const items = (await api.get(`${MOBILE}/courses?course_template_ids=${bare.id},${described.id}`)).body.items;
    expect(items.map((i: { template: { description: string | null } }) => i.template.description)).toEqual([null, 'As published']);
    expect((await api.get(`${MOBILE}/courses/${bare.id}`)).body.template.description).toBeNull();
  });

  it('400 when the ids are missing or not integers', async () => {
    for (const query of ['', '?course_template_ids=', '?course_template_ids=a,b', '?course_template_ids=1,x', '?course_template_ids=1.5', '?course_template_ids=-1', '?course_template_ids[]=a', '?other=1']) {
      const res = await f.learner.get(`${MOBILE}/courses${query}`);
      expect([query, res.status, res.headers.get('content-type')]).toEqual([query, 400, expect.stringMatching(/problem\+json/)]);
    }
    for (const query of ['', '?task_ids=', '?task_ids=one', '?task_ids[]=1&task_ids[]=z']) expect([query, (await f.learner.get(`${MOBILE}/tasks${query}`)).status]).toEqual([query, 400]);
    expect((await f.learner.get(`${MOBILE}/courses/abc`)).status).toBe(400);
    expect((await f.learner.get(`${MOBILE}/tasks/abc`)).status).toBe(400);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
    expect((await f.learner.get(`${MOBILE}/courses?course_template_ids=${ids(1001)}`)).status).toBe(400);
  });

  it('takes a list with empty parts (a trailing comma) and up to 1,000 ids, a page of any list', async () => {
    for (const query of ['?course_template_ids=1,2,', '?course_template_ids=1,,2', `?course_template_ids=${Array.from({ length: 1000 }, (_, i) => i + 1).join(',')}`]) {
      expect([query.slice(0, 40), (await f.learner.get(`${MOBILE}/courses${query}`)).status]).toEqual([query.slice(0, 40), 200]);
    }
    expect((await f.learner.get(`${MOBILE}/tasks?task_ids=1,`)).status).toBe(200);
  });

  it('answers task items with the caller\'s enrollment (approval null until one exists) or null, and the single task with its type', async () => {
    const open = await task({ open_enrollment: true, has_certificate: true, requires_evidence: true });
    const closed = await task({ title: 'Closed', requires_approval: false });
    const draft = await task({ is_published: false });
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const enrolled = (await api.post(`/api/learner/open_tasks/${open.id}/enrollment`)).body.enrollments[0];

    const res = await api.get(`${MOBILE}/tasks?task_ids=${open.id},${closed.id},${draft.id}`);
    expect(res.status).toBe(200);
    // An envelope, as every list (spec, Conventions 3: only the single items are objects on their own).
    expect(res.body).toEqual({
      meta: {},
      items: [
        {
          enrollment: { id: enrolled.id, end_at: enrolled.end_at, required: false, state: 'assigned', approval: null, blocked_by: null },
          enrollment_profile: { has_certificate: true, open_enrollment: true, uuid: open.uuid },
          template: {
            id: Number(open.id), attachments_count: 0, description: 'Do it', title: 'Checkpoint', cover_slide_data: { background_image_url: null },
            launch_url: `/api/learner/learning_items/${enrolled.id}`, requires_approval: true, requires_evidence: true,
          },
        },
        {
          enrollment: null,
          enrollment_profile: { has_certificate: false, open_enrollment: false, uuid: closed.uuid },
          template: {
            id: Number(closed.id), attachments_count: 0, description: 'Do it', title: 'Closed', cover_slide_data: { background_image_url: null },
            launch_url: `/api/learner/open_tasks/${closed.uuid}/enrollment`, requires_approval: false, requires_evidence: false,
          },
        },
      ],
    });
    expect((await api.get(`${MOBILE}/tasks?task_ids[]=${open.id}&task_ids[]=${closed.id}`)).body).toEqual(res.body);
    const one = await api.get(`${MOBILE}/tasks/${open.id}`);
    expect([one.status, one.body]).toEqual([200, { ...res.body.items[0], type: 'Task' }]);
    expect((await f.learner.get(`${MOBILE}/tasks/${open.id}`)).body.enrollment).toBeNull();
    expect((await api.get(`${MOBILE}/tasks/${draft.id}`)).status).toBe(404);
    expect((await f.stranger.get(`${MOBILE}/tasks/${open.id}`)).status).toBe(404);
    expect((await f.admin.as(undefined).get(`${MOBILE}/tasks/${open.id}`)).status).toBe(401);
  });
});
