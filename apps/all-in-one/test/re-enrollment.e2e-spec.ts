import { eventually, queryDatabase } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, enrollmentsOf, startEnrollmentFixture } from './enrollment-fixture.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const DAY = 86_400_000;
const SWEEP = { ENROLLMENT_SWEEP_INTERVAL_MS: '100' };

describe('expiration and automatic re-enrollment, end to end', () => {
  let f: EnrollmentFixture;
  /** A second replica of the whole system on the same database: both sweep. */
  let replica: TestSystem;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-re-enrollment', SWEEP);
    replica = await startTestSystem(SWEEP, f.t.db);
  });
  afterAll(async () => {
    await replica?.close();
    await f?.close();
  });

  const expiration = { expires: true, default_days_until_expiration: 1, auto_re_enroll: true, re_enrollment_period: 0 };

  it('stores the expiration settings and shows them with includes[]=expiration', async () => {
    const course = await f.publishedCourse({ title: 'Expiring settings', ...expiration, re_enrollment_period: 7 });
    const listed = async () => (await f.admin.get(`${COURSES}?includes[]=expiration&search=Expiring%20settings`)).body.course_templates[0];
    expect(await listed()).toMatchObject({ expires: true, default_days_until_expiration: 1, auto_re_enroll: true, re_enrollment_period: 7 });
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { auto_re_enroll: false, default_days_until_expiration: null } })).status).toBe(200);
    expect(await listed()).toMatchObject({ expires: true, default_days_until_expiration: null, auto_re_enroll: false });
    expect((await f.admin.get(`${COURSES}?search=Expiring%20settings`)).body.course_templates[0].expires).toBeUndefined();
    for (const bad of [{ expires: 'yes' }, { default_days_until_expiration: 0 }, { re_enrollment_period: -1 }, { auto_re_enroll: null }]) {
      expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: bad })).status).toBe(400);
    }
  });

  it('re-enrolls expired completions once with two replicas sweeping, and leaves the others alone', async () => {
    const course = await f.publishedCourse({ title: 'Recertify', ...expiration });
    const manual = await f.publishedCourse({ title: 'Manual recert', ...expiration, auto_re_enroll: false });
    const early = await f.publishedCourse({ title: 'Early recert', ...expiration, default_days_until_expiration: 10, re_enrollment_period: 30 });
    const learners = await Promise.all(Array.from({ length: 30 }, () => f.newLearner()));
    const twoDaysAgo = new Date(Date.now() - 2 * DAY).toISOString();
    const complete = async (courseId: string, userId: number, completedAt = twoDaysAgo) => {
      const { id } = (await f.enroll(courseId, [{ user_id: userId }])).enrollments[0];
      const res = await f.admin.patch(`${ENROLLMENTS}/${id}`, { enrollments: [{ completed_at: completedAt }] });
      expect(res.body.enrollments[0].expires_at).toBe(new Date(new Date(completedAt).getTime() + (courseId === early.id ? 10 : 1) * DAY).toISOString());
      return id as number;
    };
    // Completed today with a 1-day expiry: not due yet.
    const fresh = await f.newLearner();
    await complete(course.id, fresh.userId, new Date().toISOString());
    // Five at a time: thirty enrollments at once into one course outlast the 5 s RPC timeout on a loaded 2-core CI machine
    // (before this session's changes too); the sweeps, not the set-up, are what this test races.
    const expired: number[] = [];
    for (let i = 0; i < learners.length; i += 5) expired.push(...(await Promise.all(learners.slice(i, i + 5).map((l) => complete(course.id, l.userId)))));
    const kept = await complete(manual.id, learners[0].userId);
    // Expires in 8 days, re-enrolled 30 days before: due now.
    await complete(early.id, learners[1].userId, new Date().toISOString().slice(0, 19) + 'Z');

    const history = async (id: string) => (await f.admin.get(`${enrollmentsOf(id)}?state=removed&per_page=100`)).body.enrollments;
    await eventually(async () => ((await history(course.id)).length >= 30 ? true : undefined), 20_000);
    await eventually(async () => ((await history(early.id)).length === 1 ? true : undefined), 20_000);
    await new Promise((r) => setTimeout(r, 500));
    const removed = await history(course.id);
    expect(removed.map((e: { id: number }) => e.id).sort()).toEqual([...expired].sort());
    expect(removed.every((e: { removal_reason: string; state: string }) => e.removal_reason === 're_enrolled' && e.state === 'complete')).toBe(true);
    const live = (await f.admin.get(`${enrollmentsOf(course.id)}?per_page=100`)).body.enrollments;
    expect(live).toHaveLength(31);
    expect(live.filter((e: { state: string }) => e.state === 'assigned').map((e: { links: { learner: { id: number } } }) => e.links.learner.id).sort()).toEqual(
      learners.map((l) => l.userId).sort(),
    );
    expect((await f.admin.get(`${enrollmentsOf(manual.id)}?state=complete`)).body.enrollments.map((e: { id: number }) => e.id)).toEqual([kept]);
    expect(await history(manual.id)).toEqual([]);
  });

  it('re-enrolls 1,000 completions of two courses due together (batches holding both), each once, with its own settings', async () => {
    const [a, b] = [await f.publishedCourse({ title: 'Batch recert A', ...expiration, default_days_until_due: 5 }), await f.publishedCourse({ title: 'Batch recert B', ...expiration, default_days_until_due: 3 })];
    // Straight into the tables, due in turns of the two courses (the sweep's order), so every batch holds both.
    const userIds = await f.t.factory.learners(f.cast.accountId, 500);
    const old = await queryDatabase<{ id: number; enrollable_id: number; user_id: number }>(
      f.t.db.url,
      `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, state, started_at, completed_at, progress, expires_at)
       SELECT $1, 'CourseTemplate', c, u, 'complete', now() - interval '3 days', now() - interval '2 days', 1, now() - interval '1 day' + (i * 2 + k) * interval '1 second'
         FROM unnest($2::int[]) WITH ORDINALITY AS x(u, i) CROSS JOIN unnest($3::int[]) WITH ORDINALITY AS y(c, k)
       RETURNING id, enrollable_id, user_id`,
      [f.cast.accountId, userIds, [Number(a.id), Number(b.id)]],
    );
    const count = async (sql: string, params: unknown[]) => (await queryDatabase<{ n: number }>(f.t.db.url, sql, params))[0].n;
    await eventually(async () => ((await count(`SELECT count(*)::int AS n FROM catalog.enrollments WHERE id = ANY($1::int[]) AND removal_reason = 're_enrolled'`, [old.map((e) => e.id)])) === 1000 ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 500));
    for (const [course, days] of [[a, 5], [b, 3]] as const) {
      const attempts = await queryDatabase<{ user_id: number; state: string; due_days: number | null }>(
        f.t.db.url,
        `SELECT user_id, state, round(extract(epoch FROM due_at - created_at) / 86400)::int AS due_days FROM catalog.enrollments
          WHERE enrollable_type = 'CourseTemplate' AND enrollable_id = $1 AND deleted_at IS NULL ORDER BY user_id`,
        [Number(course.id)],
      );
      expect(attempts.map((e) => e.user_id)).toEqual(userIds);
      expect(new Set(attempts.map((e) => `${e.state} ${e.due_days}`))).toEqual(new Set([`assigned ${days}`]));
    }
    // Announced once each: the old one's removal, the new attempt's creation.
    expect(await count(`SELECT count(*)::int AS n FROM catalog.outbox WHERE type = 'catalog.enrollment.removed' AND (payload->'data'->>'id')::int = ANY($1::int[])`, [old.map((e) => e.id)])).toBe(1000);
    expect(await count(`SELECT count(*)::int AS n FROM catalog.outbox WHERE type = 'catalog.enrollment.created' AND (payload->'data'->>'course_template_id')::int = ANY($1::int[]) AND (payload->'data'->>'user_id')::int = ANY($2::int[])`, [[Number(a.id), Number(b.id)], userIds])).toBe(1000);
  });

  it('re-enrolls by the settings as last published: auto_re_enroll in a draft waits for the publish', async () => {
    const course = await f.publishedCourse({ title: 'Recertify when published', ...expiration, auto_re_enroll: false });
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { auto_re_enroll: true } })).status).toBe(200);
    const user = await f.newLearner();
    const { id } = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments[0];
    expect((await f.admin.patch(`${ENROLLMENTS}/${id}`, { enrollments: [{ completed_at: new Date(Date.now() - 2 * DAY).toISOString() }] })).status).toBe(200);
    const history = async () => (await f.admin.get(`${enrollmentsOf(course.id)}?state=removed`)).body.enrollments;
    // Several sweeps of both replicas pass over the expired completion.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await history()).toEqual([]);
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    await eventually(async () => ((await history()).length === 1 ? true : undefined), 20_000);
    expect((await history())[0]).toMatchObject({ id, removal_reason: 're_enrolled' });
  });
});
