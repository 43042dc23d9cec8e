import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import { holdingLock } from '@lms/testing';
import { COURSES, PROGRAMS, TASKS } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

const ITEMS = '/api/learner/lti/content_items';
const LAUNCH = '/api/admin/lti_link_item_launch';
const LAUNCH_URL = 'https://tool.example.test/lti/launch?tool_course=7&x=a%20b';
const SECRET = 'sh4red s3cret&key';

const LAUNCH_PARAMETERS = [
  'context_id', 'context_label', 'custom_field', 'launch_presentation_document_target', 'launch_presentation_return_url', 'lis_person_contact_email_primary',
  'lis_person_name_family', 'lis_person_name_full', 'lis_person_name_given', 'lti_message_type', 'lti_version', 'oauth_callback', 'oauth_consumer_key',
  'oauth_nonce', 'oauth_signature', 'oauth_signature_method', 'oauth_timestamp', 'oauth_version', 'resource_link_description', 'resource_link_id', 'roles',
  'tool_consumer_info_product_family_code', 'tool_consumer_instance_guid', 'tool_consumer_instance_name', 'tool_consumer_instance_url', 'user_id',
];

/**
 * Checks an LTI 1.1 launch as a tool provider would, with the oauth-1.0a library (not our signing code):
 * the signature over POST launch_url of every parameter but itself, keyed by the consumer secret.
 */
function verifies(launchUrl: string, launchData: Record<string, string>, key: string, secret: string): boolean {
  const oauth = new OAuth({ consumer: { key, secret }, signature_method: 'HMAC-SHA1', hash_function: (base, signingKey) => createHmac('sha1', signingKey).update(base).digest('base64') });
  const { oauth_signature: signature, ...rest } = launchData;
  const oauthData = Object.fromEntries(Object.entries(rest).filter(([name]) => name.startsWith('oauth_'))) as unknown as OAuth.Authorization;
  const form = Object.fromEntries(Object.entries(rest).filter(([name]) => !name.startsWith('oauth_')));
  return rest.oauth_consumer_key === key && oauth.getSignature({ url: launchUrl, method: 'POST', data: form }, '', oauthData) === signature;
}

describe('LTI content items and launches, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-lti');
  });
  afterAll(async () => {
    await f?.close();
  });

  async function itemOf(courseId: string, fields: Record<string, unknown> = {}) {
    const res = await f.author.post(`${COURSES}/${courseId}/lti_content_items`, {
      lti_content_items: [{ title: 'Lab tool', description: 'A remote lab', launch_url: LAUNCH_URL, consumer_key: 'lab-key', consumer_secret: SECRET, custom_field: 'level=2', ...fields }],
    });
    expect(res.status).toBe(201);
    return res.body.lti_content_items[0];
  }

  it('authors add tool links to their course (201); the secret is never answered; others are refused', async () => {
    const course = await f.createCourse({ is_published: true }, f.author);
    const item = await itemOf(course.id);
    expect(item).toEqual({
      id: expect.any(Number), title: 'Lab tool', description: 'A remote lab', course_template_id: Number(course.id), launch_url: LAUNCH_URL, consumer_key: 'lab-key',
      custom_field: 'level=2', created_at: expect.any(String),
    });
    expect(JSON.stringify(item)).not.toContain(SECRET);
    const body = { lti_content_items: [{ title: 'x', launch_url: LAUNCH_URL, consumer_key: 'k', consumer_secret: 's' }] };
    expect((await f.learner.post(`${COURSES}/${course.id}/lti_content_items`, body)).status).toBe(403);
    expect((await f.otherAuthor.post(`${COURSES}/${course.id}/lti_content_items`, body)).status).toBe(403);
    expect((await f.stranger.post(`${COURSES}/${course.id}/lti_content_items`, body)).status).toBe(404);
    for (const bad of [{ ...body.lti_content_items[0], launch_url: 'ftp://x' }, { ...body.lti_content_items[0], consumer_secret: undefined }, { ...body.lti_content_items[0], extra: 1 }]) {
      expect((await f.author.post(`${COURSES}/${course.id}/lti_content_items`, { lti_content_items: [bad] })).status).toBe(400);
    }
  });

  it('a learner enrolled in the course reads the item and completes their enrollment through it (204); others get 404', async () => {
    const course = await f.createCourse({ is_published: true }, f.author);
    const item = await itemOf(course.id);
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const [enrollment] = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments;

    const shown = await api.get(`${ITEMS}/${item.id}`);
    expect([shown.status, shown.body]).toEqual([200, { meta: {}, lti_content_items: [{ id: item.id, title: 'Lab tool', description: 'A remote lab' }] }]);
    const outsider = f.admin.as((await f.newLearner()).token);
    for (const [client, path] of [
      [outsider, `${ITEMS}/${item.id}`],
      [f.stranger, `${ITEMS}/${item.id}`],
      [api, `${ITEMS}/999999`],
    ] as const) {
      expect([path, (await client.get(path)).status, (await client.post(`${path}/complete`)).status]).toEqual([path, 404, 404]);
    }
    expect((await f.admin.as(undefined).post(`${ITEMS}/${item.id}/complete`)).status).toBe(401);
    expect((await api.get(`/api/learner/courses/${enrollment.id}`)).body.courses[0].state).toBe('assigned');

    const done = await api.post(`${ITEMS}/${item.id}/complete`);
    expect([done.status, done.text]).toEqual([204, '']);
    expect((await api.get(`/api/learner/courses/${enrollment.id}`)).body.courses[0]).toMatchObject({ state: 'complete', completed_at: expect.any(String) });
    await f.eventOf('catalog.enrollment.completed', (d) => d.enrollment_id === enrollment.id);
    expect((await api.post(`${ITEMS}/${item.id}/complete`)).status).toBe(204);
  });

  it('an item of a course taken away from learners (unpublished or archived) is a 404 to its learners, as the course is, and completes nothing', async () => {
    const course = await f.createCourse({ is_published: true }, f.author);
    const item = await itemOf(course.id);
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const [enrollment] = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments;
    const refused = async () => [(await api.get(`${ITEMS}/${item.id}`)).status, (await api.post(`${ITEMS}/${item.id}/complete`)).status];

    expect((await f.author.patch(`${COURSES}/${course.id}`, { course_template: { is_published: false } })).status).toBe(200);
    expect(await refused()).toEqual([404, 404]);
    expect((await f.author.patch(`${COURSES}/${course.id}`, { course_template: { is_published: true } })).status).toBe(200);
    expect((await f.author.delete(`${COURSES}/${course.id}`)).status).toBe(204);
    expect(await refused()).toEqual([404, 404]);
    // Adding tool links is an authoring write: an archived course takes none (400), as its other writes.
    const added = await f.author.post(`${COURSES}/${course.id}/lti_content_items`, { lti_content_items: [{ title: 'Late', launch_url: LAUNCH_URL, consumer_key: 'k', consumer_secret: 's' }] });
    expect([added.status, added.body.code]).toEqual([400, 'COURSE_TEMPLATE_ARCHIVED']);
    expect((await f.admin.get(`${COURSES}/${course.id}/enrollments`)).body.enrollments[0]).toMatchObject({ id: enrollment.id, state: 'assigned' });
  });

  it('completes nothing through an item whose course is unpublished or archived while the completion waits for the course (404)', async () => {
    for (const change of ['is_published = false', 'deleted_at = now()']) {
      const course = await f.createCourse({ is_published: true }, f.author);
      const item = await itemOf(course.id);
      const user = await f.newLearner();
      const [enrollment] = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments;
      // The completion finds the item served, then waits for the course's row while the course is taken away.
      const completed = await holdingLock(f.t.db.url, `UPDATE catalog.course_templates SET ${change} WHERE id = $1`, [Number(course.id)], async (held) => {
        const completing = f.admin.as(user.token).post(`${ITEMS}/${item.id}/complete`);
        await held.waiters();
        await held.release('commit');
        return completing;
      });
      expect([completed.status, completed.body?.code]).toEqual([404, 'LTI_CONTENT_ITEM_NOT_FOUND']);
      expect((await f.admin.get(`${COURSES}/${course.id}/enrollments`)).body.enrollments[0]).toMatchObject({ id: enrollment.id, state: 'assigned', completed_at: null });
    }
  });

  it('completing a quiz course through an item takes the quiz score, as /complete does (0 with nothing answered)', async () => {
    const quizCourse = await f.createCourse({}, f.author);
    const slide = await f.author.post(`${COURSES}/${quizCourse.id}/slides`, {
      slides: [{ draft_attributes: { title: 'Sky', type: 'quiz', allow_comments: null, question: { prompt: 'Sky?', choices: [{ id: 'a', text: 'Blue', correct: true }, { id: 'b', text: 'Red', correct: false }] } } }],
    });
    expect(slide.status).toBe(201);
    expect((await f.author.post(`${COURSES}/${quizCourse.id}/publish`, {})).status).toBe(200);
    const quizItem = await itemOf(quizCourse.id);
    const [viaItem, viaComplete] = [await f.newLearner(), await f.newLearner()];
    const enrolled = (await f.enroll(quizCourse.id, [{ user_id: viaItem.userId }, { user_id: viaComplete.userId }])).enrollments;
    const enrollmentOf = (user: { userId: number }) => enrolled.find((e: { links: { learner: { id: number } } }) => e.links.learner.id === user.userId).id;
    expect((await f.admin.as(viaItem.token).post(`${ITEMS}/${quizItem.id}/complete`)).status).toBe(204);
    const completed = (await f.admin.as(viaComplete.token).post(`/api/learner/courses/${enrollmentOf(viaComplete)}/complete`, {})).body.courses[0];
    const throughItem = (await f.admin.as(viaItem.token).get(`/api/learner/courses/${enrollmentOf(viaItem)}`)).body.courses[0];
    expect([throughItem.state, throughItem.score]).toEqual(['complete', 0]);
    expect([completed.state, completed.score]).toEqual(['complete', 0]);
  });

  it("completing through an item is held by an incomplete blocking checkpoint of the learner's program, as /complete is", async () => {
    const course = await f.createCourse({ is_published: true }, f.author);
    const item = await itemOf(course.id);
    const gate = (await f.author.post(TASKS, { tasks: [{ title: 'Gate', is_published: true, blocks_progress: true }] })).body.tasks[0];
    const program = (await f.author.post(PROGRAMS, { programs: [{ title: 'Gated path', is_published: true, items: [{ type: 'Task', id: Number(gate.id) }, { type: 'CourseTemplate', id: Number(course.id) }] }] })).body.programs[0];
    const learner = await f.newLearner();
    const body = (await f.author.post(`${PROGRAMS}/${program.id}/enrollments`, { enrollments: [{ user_id: learner.userId }] })).body;
    const api = f.admin.as(learner.token);
    const inCourse = body.enrollments[0].id;
    const refused = await api.post(`${ITEMS}/${item.id}/complete`);
    expect([refused.status, refused.body?.code, refused.body?.errors]).toEqual([400, 'BLOCKED_BY_CHECKPOINT', [{ field: 'blocked_by', message: `task ${gate.id} of program ${program.id} is not complete` }]]);
    expect((await api.post(`/api/learner/courses/${inCourse}/complete`, {})).body.code).toBe('BLOCKED_BY_CHECKPOINT');
    expect((await api.get(`/api/learner/courses/${inCourse}`)).body.courses[0].state).toBe('assigned');
    expect((await api.post(`/api/learner/tasks/${body.task_enrollments[0].id}/complete`, {})).status).toBe(200);
    expect((await api.post(`${ITEMS}/${item.id}/complete`)).status).toBe(204);
    expect((await api.get(`/api/learner/courses/${inCourse}`)).body.courses[0].state).toBe('complete');
  });

  it('the admin launch answers every LTI 1.1 parameter, signed so that an independent OAuth library verifies it and a wrong secret does not', async () => {
    const course = await f.createCourse({ title: 'Lab course', is_published: true }, f.author);
    const item = await itemOf(course.id);
    const adminUser = await f.t.factory.user(f.cast.accountId, ['admin']);
    await f.t.factory.setUserNames(adminUser.userId, { firstName: 'Ada', lastName: 'Lovelace' });
    const admin = f.admin.as(adminUser.token);
    const res = await admin.get(`${LAUNCH}?lti_content_item_id=${item.id}`);
    expect(res.status).toBe(200);
    const { launch_data: data, ...rest } = res.body;
    expect(rest).toEqual({ lti_content_item_id: String(item.id), program_id: '', launch_url: LAUNCH_URL });
    expect(Object.keys(data).sort()).toEqual([...LAUNCH_PARAMETERS].sort());
    expect(Object.values(data).every((v) => typeof v === 'string')).toBe(true);
    expect(data).toMatchObject({
      lti_message_type: 'basic-lti-launch-request', lti_version: 'LTI-1p0', oauth_consumer_key: 'lab-key', oauth_signature_method: 'HMAC-SHA1', oauth_version: '1.0',
      custom_field: 'level=2', resource_link_description: 'A remote lab', context_label: 'Lab course', context_id: `course-${course.id}`, roles: 'Administrator',
      user_id: String(adminUser.userId), lis_person_name_full: 'Ada Lovelace', lis_person_name_given: 'Ada', lis_person_name_family: 'Lovelace',
    });
    expect(Math.abs(Number(data.oauth_timestamp) - Date.now() / 1000)).toBeLessThan(60);

    expect(verifies(LAUNCH_URL, data, 'lab-key', SECRET)).toBe(true);
    expect(verifies(LAUNCH_URL, data, 'lab-key', 'wrong secret')).toBe(false);
    expect(verifies(LAUNCH_URL, { ...data, user_id: '1' }, 'lab-key', SECRET)).toBe(false);
    expect(verifies('https://tool.example.test/lti/launch', data, 'lab-key', SECRET)).toBe(false);
    // Each launch has its own nonce.
    const again = (await admin.get(`${LAUNCH}?lti_content_item_id=${item.id}`)).body.launch_data;
    expect(again.oauth_nonce).not.toBe(data.oauth_nonce);
    expect(verifies(LAUNCH_URL, again, 'lab-key', SECRET)).toBe(true);
  });

  it('a launch within a program names it; unknown items and programs are 404, a missing or bad id 400, learners 403, other accounts 404', async () => {
    const course = await f.createCourse({ is_published: true }, f.author);
    const item = await itemOf(course.id);
    const program = (await f.author.post(PROGRAMS, { programs: [{ title: 'Lab path', is_published: true, course_template_ids: [Number(course.id)] }] })).body.programs[0];
    const res = await f.admin.get(`${LAUNCH}?lti_content_item_id=${item.id}&program_id=${program.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ program_id: String(program.id), launch_data: { context_id: `program-${program.id}`, context_label: 'Lab path' } });
    expect(verifies(LAUNCH_URL, res.body.launch_data, 'lab-key', SECRET)).toBe(true);

    expect((await f.admin.get(`${LAUNCH}?lti_content_item_id=999999`)).status).toBe(404);
    expect((await f.admin.get(`${LAUNCH}?lti_content_item_id=${item.id}&program_id=999999`)).status).toBe(404);
    // A program without the item's course is no context for its launch.
    const other = (await f.author.post(PROGRAMS, { programs: [{ title: 'Other path', course_template_ids: [Number((await f.createCourse({ is_published: true }, f.author)).id)] }] })).body.programs[0];
    const outside = await f.admin.get(`${LAUNCH}?lti_content_item_id=${item.id}&program_id=${other.id}`);
    expect([outside.status, outside.body.code]).toEqual([404, 'PROGRAM_NOT_FOUND']);
    for (const query of ['', '?lti_content_item_id=abc', '?lti_content_item_id=0', `?lti_content_item_id=${item.id}&program_id=x`]) {
      expect([query, (await f.admin.get(`${LAUNCH}${query}`)).status]).toEqual([query, 400]);
    }
    expect((await f.learner.get(`${LAUNCH}?lti_content_item_id=${item.id}`)).status).toBe(403);
    expect((await f.author.get(`${LAUNCH}?lti_content_item_id=${item.id}`)).status).toBe(403);
    expect((await f.stranger.get(`${LAUNCH}?lti_content_item_id=${item.id}`)).status).toBe(404);
  });
});
