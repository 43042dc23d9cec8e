import { COURSES } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, enrollmentsOf, startEnrollmentFixture } from './enrollment-fixture.js';

const DAY = 86_400_000;

describe('course enrollment figures from real enrollments, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    // This spec is about exact figures under concurrency, not latency (bench/ measures that): on a shared
    // CI machine a burst of 100 requests may queue past the default 5 s RPC timeout.
    f = await startEnrollmentFixture('e2e-enrollment-counts', { RPC_TIMEOUT_MS: '30000' });
  });
  afterAll(async () => {
    await f?.close();
  });

  const shown = async (id: string) => (await f.admin.get(`${COURSES}/${id}`)).body.course_templates[0];

  it('stays exact under 100 concurrent enrollments and then 100 concurrent changes and completions in one course', async () => {
    const course = await f.publishedCourse({ title: 'Busy course', default_days_until_due: 0 });
    const learners = await Promise.all(Array.from({ length: 100 }, () => f.newLearner()));
    const shared = await f.newLearner();
    // Every request also names the same learner: exactly one of them enrolls them, the others skip them.
    const posts = await Promise.all(
      learners.map((l, i) => f.admin.post(enrollmentsOf(course.id), { enrollments: [{ user_id: l.userId, required: i % 2 === 0 }, { user_id: shared.userId }] })),
    );
    expect(posts.map((r) => r.status)).toEqual(posts.map(() => 201));
    expect(posts.filter((r) => r.body.enrollments.some((e: { links: { learner: { id: number } } }) => e.links.learner.id === shared.userId))).toHaveLength(1);
    const ids = posts.map((r) => r.body.enrollments.find((e: { links: { learner: { id: number } } }) => e.links.learner.id !== shared.userId).id as number);

    // 0..49 complete (40..49 asked twice at once), 50..74 start, 75..99 get a past due date; all at once.
    const changes = ids.flatMap((id, i): { id: number; change: Record<string, unknown> }[] => {
      if (i < 50) return Array.from({ length: i < 40 ? 1 : 2 }, () => ({ id, change: { completed_at: '2026-03-01T00:00:00Z' } }));
      if (i < 75) return [{ id, change: { state: 'active' } }];
      return [{ id, change: { end_at: new Date(Date.now() - DAY).toISOString() } }];
    });
    const patched = await Promise.all(changes.map(({ id, change }) => f.admin.patch(`${ENROLLMENTS}/${id}`, { enrollments: [change] })));
    expect(patched.map((r) => r.status)).toEqual(patched.map(() => 200));

    const record = await shown(course.id);
    expect(record.enrollments_count).toBe(101);
    expect(record.enrollment_counts).toEqual({ all: 101, required: 51, optional: 50, finished: 50, not_started: 26, overdue: 25, in_progress: 25 });
    const completions = new Set(ids.slice(0, 50));
    await f.eventOf('catalog.enrollment.completed', (d) => d.enrollment_id === ids[49]);
    await new Promise((r) => setTimeout(r, 500));
    const emitted = f.events.filter((e) => e.type === 'catalog.enrollment.completed' && completions.has((e.data as { enrollment_id: number }).enrollment_id));
    expect(emitted).toHaveLength(50);
    const listed = await f.admin.get(`${COURSES}?includes[]=counts&search=Busy%20course`);
    expect(listed.body.course_templates[0].enrollment_counts).toEqual(record.enrollment_counts);
  });

  it('answers next_section_due, has_shared_enrollments and the no_enrollments filter from the enrollments', async () => {
    const course = await f.publishedCourse({ title: 'Due soon', default_days_until_due: 0 });
    const lonely = await f.publishedCourse({ title: 'Due nobody' });
    expect(await shown(course.id)).toMatchObject({ next_section_due: null, has_shared_enrollments: false, enrollments_count: 0 });
    const [a, b, c] = [await f.newLearner(), await f.newLearner(), await f.newLearner()];
    const { enrollments } = await f.enroll(course.id, [
      { user_id: a.userId, end_at: '2031-01-01T00:00:00Z' },
      { user_id: b.userId, end_at: '2030-06-01T00:00:00Z' },
      { user_id: c.userId, end_at: '2020-01-01T00:00:00Z' },
    ]);
    // The nearest due moment ahead among the open enrollments; a past one is overdue, not next.
    expect((await shown(course.id)).next_section_due).toBe('2030-06-01T00:00:00.000Z');
    await f.admin.patch(`${ENROLLMENTS}/${enrollments[1].id}`, { enrollments: [{ state: 'complete' }] });
    expect(await shown(course.id)).toMatchObject({ next_section_due: '2031-01-01T00:00:00.000Z', has_shared_enrollments: false });

    const withNone = async () => (await f.admin.get(`${COURSES}?filters[]=no_enrollments&search=Due%20`)).body.course_templates.map((t: { id: string }) => t.id);
    expect(await withNone()).toEqual([lonely.id]);
    // A removed enrollment is history: the course counts as having none again.
    const only = (await f.enroll(lonely.id, [{ user_id: a.userId }])).enrollments[0].id;
    expect(await withNone()).toEqual([]);
    expect((await f.admin.delete(`${ENROLLMENTS}/${only}`)).status).toBe(204);
    expect(await withNone()).toEqual([lonely.id]);
  });
});
