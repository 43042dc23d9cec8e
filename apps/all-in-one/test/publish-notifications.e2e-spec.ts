import { COURSES } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, enrollmentsOf, startEnrollmentFixture } from './enrollment-fixture.js';

describe('publish notifications and re-enrollment, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-publish-notifications');
  });
  afterAll(async () => {
    await f?.close();
  });

  /** A published course with four learners: assigned, active, complete, and one whose enrollment was removed. */
  async function courseWithLearners(title: string) {
    const course = await f.publishedCourse({ title, default_days_until_due: 10 });
    const [assigned, active, complete, removed] = [await f.newLearner(), await f.newLearner(), await f.newLearner(), await f.newLearner()];
    const { enrollments } = await f.enroll(course.id, [assigned, active, complete, removed].map((u) => ({ user_id: u.userId })));
    const idOf = (userId: number) => enrollments.find((e: { links: { learner: { id: number } } }) => e.links.learner.id === userId).id as number;
    await f.admin.patch(`${ENROLLMENTS}/${idOf(active.userId)}`, { enrollments: [{ state: 'active' }] });
    await f.admin.patch(`${ENROLLMENTS}/${idOf(complete.userId)}`, { enrollments: [{ completed_at: '2026-01-05T00:00:00Z' }] });
    await f.admin.delete(`${ENROLLMENTS}/${idOf(removed.userId)}`);
    return { course, assigned, active, complete, removed, idOf };
  }
  const publish = async (courseId: string, body: Record<string, unknown>) => {
    const res = await f.author.post(`${COURSES}/${courseId}/publish`, body);
    expect(res.status).toBe(200);
    return f.eventOf('catalog.course_template.published', (d) => d.id === Number(courseId) && d.notify_message === body.notify_message);
  };
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

  it('selects the recipients among the live enrollments by notify_filter and puts them with the message in the published event', async () => {
    const { course, assigned, active, complete } = await courseWithLearners('Notified');
    await f.admin.post(`${COURSES}/${course.id}/authors`, { users: [{ user_id: f.cast.author.userId }] });
    const cases: [string | undefined, number[]][] = [
      ['all', [assigned.userId, active.userId, complete.userId]],
      ['finished', [complete.userId]],
      ['in_progress', [assigned.userId, active.userId]],
      [undefined, []],
    ];
    for (const [filter, expected] of cases) {
      const event = await publish(course.id, { ...(filter ? { notify_filter: filter } : {}), notify_message: `Changed (${filter})` });
      expect(event.data).toMatchObject({ notify_filter: filter ?? null, notify_message: `Changed (${filter})`, recipients: sorted(expected), recipients_count: expected.length, re_enroll: false });
    }
  });

  it('gives every completed enrollment a new attempt with re_enroll=true, keeping the completion as history', async () => {
    const { course, complete, idOf } = await courseWithLearners('Re-enrolled');
    const done = idOf(complete.userId);
    await f.admin.post(`${COURSES}/${course.id}/authors`, { users: [{ user_id: f.cast.author.userId }] });
    const event = await publish(course.id, { notify_filter: 'finished', notify_message: 'Take it again', re_enroll: true });
    expect(event.data).toMatchObject({ re_enroll: true, recipients: [complete.userId], recipients_count: 1 });

    const live = (await f.admin.get(enrollmentsOf(course.id))).body.enrollments;
    const fresh = live.find((e: { links: { learner: { id: number } } }) => e.links.learner.id === complete.userId);
    expect(fresh).toMatchObject({ state: 'assigned', completed_at: null, score: null });
    expect(fresh.id).not.toBe(done);
    expect(new Date(fresh.end_at).getTime()).toBeGreaterThan(Date.now() + 9 * 86_400_000);
    const history = (await f.admin.get(`${enrollmentsOf(course.id)}?state=removed`)).body.enrollments;
    expect(history).toEqual(expect.arrayContaining([expect.objectContaining({ id: done, state: 'complete', removal_reason: 're_enrolled' })]));
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].enrollment_counts).toMatchObject({ all: 3, finished: 0 });

    // The first completion still counts once; the new attempt's completion counts again.
    expect(await f.summaryOnce(complete.userId, 1)).toMatchObject({ completed_courses: 1 });
    expect((await f.admin.patch(`${ENROLLMENTS}/${fresh.id}`, { enrollments: [{ state: 'complete' }] })).status).toBe(200);
    expect(await f.summaryOnce(complete.userId, 2)).toMatchObject({ completed_courses: 2, all: 2 });
  });
});
