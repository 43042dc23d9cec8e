import { eventually } from '@lms/testing';
import { type CatalogFixture, COURSES, courseRequest, startCatalogFixture } from './catalog-fixture.js';

/**
 * Group learners' `completed_courses_count` and `next_due_date` (issue 22), from real enrollments: catalog's
 * events projected into identity, never a read of catalog's schema.
 */
describe('group learners show their completed courses and next due date', () => {
  let f: CatalogFixture;
  beforeAll(async () => {
    f = await startCatalogFixture('e2e-group-learner-figures');
  });
  afterAll(() => f?.close());

  const DAY = 86_400_000;
  const dueIn = (days: number) => new Date(Math.floor((Date.now() + days * DAY) / 1000) * 1000).toISOString();

  async function publishedCourses(count: number): Promise<string[]> {
    const res = await f.author.post(COURSES, { course_templates: Array.from({ length: count }, (_, i) => courseRequest({ title: `Figures ${i}`, is_published: true })) });
    expect(res.status).toBe(201);
    return res.body.course_templates.map((c: { id: string }) => c.id);
  }

  async function groupWith(userIds: number[]): Promise<string> {
    const group = (await f.admin.post('/api/author/groups', { groups: [{ name: `Figures ${Date.now()} ${Math.random()}` }] })).body.groups[0].id as string;
    expect((await f.admin.post(`/api/author/groups/${group}/learners`, { users: userIds.map((user_id) => ({ user_id })) })).status).toBe(201);
    return group;
  }

  const enroll = async (course: string, userId: number, endAt: string) => {
    const res = await f.author.post(`${COURSES}/${course}/enrollments`, { enrollments: [{ user_id: userId, end_at: endAt }] });
    expect(res.status).toBe(201);
    return res.body.enrollments[0].id as string;
  };
  const complete = async (enrollment: string) =>
    expect((await f.author.patch(`/api/author/enrollments/${enrollment}`, { enrollments: [{ completed_at: new Date().toISOString(), score: 80 }] })).status).toBe(200);

  const learnerIn = async (group: string, userId: number) =>
    ((await f.admin.get(`/api/author/groups/${group}/learners?per_page=100`)).body.learners as { id: string; completed_courses_count: number; next_due_date: string | null }[]).find(
      (l) => l.id === String(userId),
    );

  it('two completed courses and one open enrollment: 2 and that enrollment’s due date (completed ones, due sooner, do not count)', async () => {
    const learner = await f.t.factory.user(f.cast.accountId, ['learner']);
    const group = await groupWith([learner.userId]);
    expect(await learnerIn(group, learner.userId)).toMatchObject({ completed_courses_count: 0, next_due_date: null });

    const [a, b, c] = await publishedCourses(3);
    const due = dueIn(10);
    const done = [await enroll(a, learner.userId, dueIn(2)), await enroll(b, learner.userId, dueIn(3))];
    await enroll(c, learner.userId, due);
    for (const enrollment of done) await complete(enrollment);

    await eventually(async () => {
      const shown = await learnerIn(group, learner.userId);
      return shown?.completed_courses_count === 2 && shown.next_due_date === due ? shown : undefined;
    }, 30_000, 100);
    // Another account's administrator sees none of it.
    expect((await f.stranger.get(`/api/author/groups/${group}/learners`)).status).toBe(404);
  }, 60_000);

  it('stays exact under 50 concurrent enrollments and then 50 concurrent completions of one learner', async () => {
    const learner = await f.t.factory.user(f.cast.accountId, ['learner']);
    const group = await groupWith([learner.userId]);
    const courses = await publishedCourses(50);
    const dues = courses.map((_, i) => dueIn(5 + i));
    const enrollments = await Promise.all(courses.map((course, i) => enroll(course, learner.userId, dues[i])));
    await eventually(async () => ((await learnerIn(group, learner.userId))?.next_due_date === dues[0] ? true : undefined), 30_000, 100);

    // All but the last complete at once: 49 completed, and the one left open is the next due.
    await Promise.all(enrollments.slice(0, 49).map(complete));
    const settled = await eventually(async () => {
      const shown = await learnerIn(group, learner.userId);
      return shown?.completed_courses_count === 49 && shown.next_due_date === dues[49] ? shown : undefined;
    }, 60_000, 200);
    expect(settled).toMatchObject({ completed_courses_count: 49, next_due_date: dues[49] });
  }, 120_000);
});
