import { eventually, holdingLock, undocumented } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, enrollmentsOf, startEnrollmentFixture } from './enrollment-fixture.js';

const DAY = 86_400_000;

describe('course enrollments, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-enrollments');
  });
  afterAll(async () => {
    await f?.close();
  });

  const patch = (id: number, change: Record<string, unknown>, method: 'patch' | 'put' = 'patch') => f.admin[method](`${ENROLLMENTS}/${id}`, { enrollments: [change] });
  const completionsOf = (id: number) => f.events.filter((e) => e.type === 'catalog.enrollment.completed' && (e.data as { enrollment_id: number }).enrollment_id === id);

  it('enrolls users (201) with the course defaults, side-loads the learners, and skips and reports those enrolled already', async () => {
    const course = await f.publishedCourse({ title: 'Safety', default_days_until_due: 14 });
    const [ann, bob] = [await f.newLearner({ firstName: 'Ann', lastName: 'Archer' }), await f.newLearner()];
    const before = Date.now();
    const res = await f.author.post(enrollmentsOf(course.id), { enrollments: [{ user_id: ann.userId }, { user_id: bob.userId, required: false, end_at: '2031-05-01T10:00:00Z' }] });
    expect(res.status).toBe(201);
    const [a, b] = res.body.enrollments;
    expect(a).toEqual({
      id: expect.any(Number), state: 'assigned', overdue: false, required: true, end_at: expect.any(String), expires_at: null, score: null,
      completed_at: null, started_at: null, progress: 0, course_template_id: Number(course.id), group_id: null, program_id: null,
      created_at: expect.any(String), updated_at: expect.any(String), links: { learner: { id: ann.userId } },
    });
    const due = new Date(a.end_at).getTime();
    expect(due).toBeGreaterThanOrEqual(before + 14 * DAY - 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + 14 * DAY + 1000);
    expect(b).toMatchObject({ required: false, end_at: '2031-05-01T10:00:00.000Z', links: { learner: { id: bob.userId } } });
    expect(res.body.linked.learners).toEqual([
      { id: ann.userId, uid: ann.uid, name: 'Ann Archer', email: `${ann.uid}@example.test`, avatar_url: null, deleted_at: null },
      expect.objectContaining({ id: bob.userId, uid: bob.uid }),
    ]);
    expect(res.body.skipped).toEqual([]);

    // Again, with a newcomer: the two are skipped and reported, the newcomer is enrolled.
    const cy = await f.newLearner();
    const again = await f.admin.post(enrollmentsOf(course.id), { enrollments: [{ user_id: ann.userId }, { user_id: cy.userId }, { user_id: bob.userId }] });
    expect(again.status).toBe(201);
    expect(again.body.enrollments.map((e: { links: { learner: { id: number } } }) => e.links.learner.id)).toEqual([cy.userId]);
    expect(again.body.skipped).toEqual([
      { user_id: ann.userId, reason: 'already_enrolled', enrollment_id: a.id },
      { user_id: bob.userId, reason: 'already_enrolled', enrollment_id: b.id },
    ]);
    expect(await undocumented(f.admin, 'POST', `${COURSES}/:course_template_id/enrollments`, 201, again.body)).toBeUndefined();
    await f.eventOf('catalog.enrollment.created', (d) => d.id === a.id && d.user_id === ann.userId && d.course_template_id === Number(course.id));
    const shown = await f.admin.get(`${COURSES}/${course.id}`);
    expect(shown.body.course_templates[0]).toMatchObject({ enrollments_count: 3, enrollment_counts: { all: 3, required: 2, optional: 1, not_started: 3 } });
  });

  it('enrolls the same learners sent at once in opposite orders: both 201, each learner once, answers in the order asked', async () => {
    const learners = await Promise.all(Array.from({ length: 120 }, () => f.newLearner()));
    for (let round = 0; round < 3; round++) {
      const course = await f.publishedCourse();
      const entries = learners.map((l) => ({ user_id: l.userId }));
      const [up, down] = await Promise.all([f.author.post(enrollmentsOf(course.id), { enrollments: entries }), f.admin.post(enrollmentsOf(course.id), { enrollments: [...entries].reverse() })]);
      expect([up.status, down.status, up.body.code, down.body.code]).toEqual([201, 201, undefined, undefined]);
      expect(up.body.enrollments.length + down.body.enrollments.length).toBe(learners.length);
      expect(up.body.skipped.length + down.body.skipped.length).toBe(learners.length);
      const asked = (res: typeof up, order: number[]) => res.body.enrollments.map((e: { links: { learner: { id: number } } }) => order.indexOf(e.links.learner.id));
      const ids = learners.map((l) => l.userId);
      for (const [res, order] of [[up, ids], [down, [...ids].reverse()]] as const) {
        const positions = asked(res, order);
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      }
    }
  });

  it('takes due dates from default_due_on_date, from end_at, or none', async () => {
    const dated = await f.publishedCourse({ title: 'Dated', due_date_type: 'absolute', default_due_on_date: '2032-03-04', default_days_until_due: 5 });
    const none = await f.publishedCourse({ title: 'Undated', default_days_until_due: 0 });
    const user = await f.newLearner();
    expect((await f.enroll(dated.id, [{ user_id: user.userId }])).enrollments[0].end_at).toBe('2032-03-04T23:59:59.999Z');
    expect((await f.enroll(none.id, [{ user_id: user.userId }])).enrollments[0].end_at).toBeNull();
    const other = await f.newLearner();
    expect((await f.enroll(dated.id, [{ user_id: other.userId, end_at: null }])).enrollments[0].end_at).toBeNull();
  });

  it('enrolls and completes with the settings as last published: a draft change of due dates, expiry or retain intervals waits for the publish', async () => {
    const course = await f.publishedCourse({ title: 'Settled', default_days_until_due: 14, expires: true, default_days_until_expiration: 10, retain: true, retain_intervals: [3] });
    const draft = { due_date_type: 'absolute', default_due_on_date: '2033-01-02', default_days_until_expiration: 30, retain_intervals: [7, 14] };
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: draft })).body.course_templates[0].has_unpublished_changes).toBe(true);
    /** A new learner's enrollment, completed by the learner: its due date, and the expiry and quizzes in days after the completion. */
    const learnerSees = async () => {
      const user = await f.newLearner();
      const [{ id, end_at }] = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments;
      const done = await f.admin.as(user.token).post(`/api/learner/courses/${id}/complete`);
      const completedAt = Date.parse(done.body.courses[0].completed_at);
      const record = (await f.admin.get(`${enrollmentsOf(course.id)}?state=complete&per_page=100`)).body.enrollments.find((e: { id: number }) => e.id === id);
      return {
        user,
        dueInDays: end_at === '2033-01-02T23:59:59.999Z' ? 'the draft date' : Math.round((Date.parse(end_at) - Date.now()) / DAY),
        expiresInDays: (Date.parse(record.expires_at) - completedAt) / DAY,
        quizzesInDays: done.body.linked.quizzes.map((q: { due_at: string }) => (Date.parse(q.due_at) - completedAt) / DAY),
      };
    };
    const before = await learnerSees();
    expect(before).toMatchObject({ dueInDays: 14, expiresInDays: 10, quizzesInDays: [3] });

    // Published: new enrollments take the new settings, and so does the new attempt of a re-enrollment.
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, { re_enroll: true })).status).toBe(200);
    expect(await learnerSees()).toMatchObject({ dueInDays: 'the draft date', expiresInDays: 30, quizzesInDays: [7, 14] });
    const attempt = (await f.admin.get(`${enrollmentsOf(course.id)}?state=assigned`)).body.enrollments.find((e: { links: { learner: { id: number } } }) => e.links.learner.id === before.user.userId);
    expect(attempt.end_at).toBe('2033-01-02T23:59:59.999Z');
  });

  it('refuses bad requests with a 400 problem and enrolls nobody', async () => {
    const course = await f.publishedCourse({ title: 'Strict' });
    const user = await f.newLearner();
    const deleted = await f.newLearner();
    await f.t.factory.softDeleteUserRow(deleted.userId);
    const cases: [unknown, string?][] = [
      [{ enrollments: [{ user_id: user.userId }, { user_id: 999_999 }] }, 'ENROLLMENT_LEARNER_INVALID'],
      [{ enrollments: [{ user_id: user.userId }, { user_id: f.cast.stranger.userId }] }, 'ENROLLMENT_LEARNER_INVALID'],
      [{ enrollments: [{ user_id: deleted.userId }, { user_id: user.userId }] }, 'ENROLLMENT_LEARNER_INVALID'],
      [{ enrollments: [{ group_id: 999_999 }] }, 'ENROLLMENT_LEARNER_INVALID'],
      [{ enrollments: [{ user_id: user.userId, group_id: 1 }] }],
      [{ enrollments: [{ required: true }] }],
      [{ enrollments: [{ user_id: user.userId, end_at: 'tomorrow' }] }],
      [{ enrollments: [{ user_id: user.userId, required: 'yes' }] }],
      [{ enrollments: [{ user_id: 'x' }] }],
      [{ enrollments: [{ user_id: 2 ** 31 }] }],
      [{ enrollments: [] }],
      [{ enrollments: [{ user_id: user.userId, role: 'admin' }] }],
      [{}],
    ];
    for (const [body, code] of cases) {
      const res = await f.admin.post(enrollmentsOf(course.id), body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      if (code) expect(res.body.code).toBe(code);
    }
    const unknown = await f.admin.post(enrollmentsOf(course.id), { enrollments: [{ user_id: user.userId }, { user_id: 999_999 }] });
    expect(unknown.body.errors).toEqual([{ field: 'enrollments[1].user_id', message: 'no such user' }]);
    expect((await f.admin.get(enrollmentsOf(course.id))).body.enrollments).toEqual([]);

    const draft = await f.createCourse({ title: 'Draft' });
    expect((await f.admin.post(enrollmentsOf(draft.id), { enrollments: [{ user_id: user.userId }] })).body.code).toBe('COURSE_TEMPLATE_NOT_PUBLISHED');
    const archived = await f.publishedCourse({ title: 'Old' });
    await f.admin.delete(`${COURSES}/${archived.id}`);
    const res = await f.admin.post(enrollmentsOf(archived.id), { enrollments: [{ user_id: user.userId }] });
    expect([res.status, res.body.code]).toEqual([400, 'COURSE_TEMPLATE_ARCHIVED']);
    expect((await f.admin.post(enrollmentsOf(999_999), { enrollments: [{ user_id: user.userId }] })).status).toBe(404);
  });

  it('lists enrollments newest first, paged, by state and by learner name; 400 for an unknown state', async () => {
    const course = await f.publishedCourse({ title: 'Listed', default_days_until_due: 0 });
    const zed = await f.newLearner({ firstName: 'Zed', lastName: 'Quill' });
    const amy = await f.newLearner({ firstName: 'Amy', lastName: 'Quillon' });
    const max = await f.newLearner({ firstName: 'Max', lastName: 'Stone' });
    const late = await f.newLearner({ firstName: 'Lara', lastName: 'Late' });
    const ids: Record<string, number> = {};
    for (const [name, user, extra] of [['zed', zed, {}], ['amy', amy, {}], ['max', max, {}], ['late', late, { end_at: '2020-01-01T00:00:00Z' }]] as const) {
      ids[name] = (await f.enroll(course.id, [{ user_id: user.userId, ...extra }])).enrollments[0].id;
    }
    expect((await patch(ids.amy, { state: 'active' })).status).toBe(200);
    expect((await patch(ids.max, { completed_at: new Date().toISOString(), score: 90 })).status).toBe(200);

    const list = await f.author.get(enrollmentsOf(course.id));
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('4');
    expect(list.body.enrollments.map((e: { id: number }) => e.id)).toEqual([ids.late, ids.max, ids.amy, ids.zed]);
    expect(list.body.linked.learners.map((l: { id: number }) => l.id).sort()).toEqual([zed, amy, max, late].map((u) => u.userId).sort());
    const idsOf = async (query: string) => (await f.admin.get(`${enrollmentsOf(course.id)}?${query}`)).body.enrollments.map((e: { id: number }) => e.id);
    expect(await idsOf('state=assigned')).toEqual([ids.late, ids.zed]);
    expect(await idsOf('state=active')).toEqual([ids.amy]);
    expect(await idsOf('state=complete')).toEqual([ids.max]);
    expect(await idsOf('state=overdue')).toEqual([ids.late]);
    expect(await idsOf('search=quill')).toEqual([ids.amy, ids.zed]);
    expect(await idsOf('search=QUILLON&state=active')).toEqual([ids.amy]);
    expect(await idsOf('search=nobody-is-called-this')).toEqual([]);
    const page = await f.admin.get(`${enrollmentsOf(course.id)}?per_page=2&page=2`);
    expect(page.body.enrollments.map((e: { id: number }) => e.id)).toEqual([ids.amy, ids.zed]);
    expect(page.headers.get('x-total-count')).toBe('4');
    const overdue = list.body.enrollments.find((e: { id: number }) => e.id === ids.late);
    expect(overdue).toMatchObject({ state: 'assigned', overdue: true });
    for (const query of ['state=lost', 'per_page=0', 'search=%00', `search=${'x'.repeat(256)}`]) {
      expect([query, (await f.admin.get(`${enrollmentsOf(course.id)}?${query}`)).status]).toEqual([query, 400]);
    }
    expect((await f.admin.get(enrollmentsOf(999_999))).status).toBe(404);
  });

  it('moves assigned → active → complete through PATCH and PUT; a completion is emitted once and is final', async () => {
    const course = await f.publishedCourse({ title: 'Moves' });
    const user = await f.newLearner();
    const { id } = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments[0];
    const started = await patch(id, { state: 'active' }, 'put');
    expect(started.status).toBe(200);
    expect(started.body.enrollments[0]).toMatchObject({ id, state: 'active', started_at: expect.any(String), completed_at: null });
    expect(started.body.linked.learners[0].id).toBe(user.userId);
    const back = await patch(id, { state: 'assigned' });
    expect([back.status, back.body.code]).toEqual([400, 'ENROLLMENT_TRANSITION_INVALID']);

    const completedAt = '2026-01-02T03:04:05.000Z';
    const done = await patch(id, { completed_at: completedAt, score: 88, end_at: '2026-02-01T00:00:00Z' });
    expect(done.status).toBe(200);
    expect(done.body.enrollments[0]).toMatchObject({ state: 'complete', completed_at: completedAt, score: 88, progress: 1, overdue: false, end_at: '2026-02-01T00:00:00.000Z' });
    // The same completion again is no change; another moment, or going back, is refused.
    expect((await patch(id, { completed_at: completedAt })).status).toBe(200);
    expect((await patch(id, { state: 'complete' })).status).toBe(200);
    expect((await patch(id, { completed_at: '2026-01-03T00:00:00Z' })).body.code).toBe('ENROLLMENT_TRANSITION_INVALID');
    expect((await patch(id, { state: 'active' })).body.code).toBe('ENROLLMENT_TRANSITION_INVALID');
    // Score and dates may still be corrected.
    expect((await patch(id, { score: 91, expires_at: '2027-01-01T00:00:00Z' })).body.enrollments[0]).toMatchObject({ score: 91, expires_at: '2027-01-01T00:00:00.000Z' });

    await f.eventOf('catalog.enrollment.completed', (d) => d.enrollment_id === id);
    await f.eventOf('catalog.enrollment.updated', (d) => d.id === id && d.state === 'complete');
    await new Promise((r) => setTimeout(r, 300));
    expect(completionsOf(id)).toHaveLength(1);
    expect(completionsOf(id)[0].data).toEqual({ user_id: user.userId, enrollment_id: id, completed_at: completedAt, due_at: '2026-02-01T00:00:00.000Z', course_id: Number(course.id) });

    // state=complete alone completes now.
    const other = await f.newLearner();
    const second = (await f.enroll(course.id, [{ user_id: other.userId }])).enrollments[0].id;
    const now = await patch(second, { state: 'complete' });
    expect(now.body.enrollments[0]).toMatchObject({ state: 'complete', progress: 1 });
    expect(Math.abs(new Date(now.body.enrollments[0].completed_at).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('refuses bad changes with a 400 problem and changes nothing', async () => {
    const course = await f.publishedCourse({ title: 'Guarded' });
    const user = await f.newLearner();
    const { id } = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments[0];
    const bodies = [
      { enrollments: [{ score: 101 }] },
      { enrollments: [{ score: -1 }] },
      { enrollments: [{ state: 'done' }] },
      { enrollments: [{ completed_at: null }] },
      { enrollments: [{ completed_at: 'yesterday' }] },
      { enrollments: [{ completed_at: new Date(Date.now() + 7 * DAY).toISOString() }] },
      { enrollments: [{ end_at: 5 }] },
      { enrollments: [{ progress: 1 }] },
      { enrollments: [{ score: 1 }, { score: 2 }] },
      { enrollments: [] },
      { enrollment: { score: 1 } },
    ];
    for (const body of bodies) {
      const res = await f.admin.patch(`${ENROLLMENTS}/${id}`, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    const [record] = (await f.admin.get(enrollmentsOf(course.id))).body.enrollments;
    expect(record).toMatchObject({ id, state: 'assigned', score: null, completed_at: null });
    expect((await patch(999_999, { score: 1 })).status).toBe(404);
  });

  it('shows a completion made through PATCH in the learner summary', async () => {
    const course = await f.publishedCourse({ title: 'Counted' });
    const user = await f.newLearner();
    const { id } = (await f.enroll(course.id, [{ user_id: user.userId, end_at: '2030-01-01T00:00:00Z' }])).enrollments[0];
    expect((await patch(id, { completed_at: '2026-06-01T12:00:00Z' })).status).toBe(200);
    expect(await f.summaryOnce(user.userId, 1)).toEqual({ completed_courses: 1, completed_programs: 0, completed_live_courses: 0, total_on_time: 1, total_overdue: 0, all: 1 });
  });

  it('removes an enrollment (204) and keeps it as history; the learner can be enrolled again', async () => {
    const course = await f.publishedCourse({ title: 'Removable' });
    const user = await f.newLearner();
    const { id } = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments[0];
    expect((await f.author.delete(`${ENROLLMENTS}/${id}`)).status).toBe(204);
    expect((await f.admin.delete(`${ENROLLMENTS}/${id}`)).status).toBe(404);
    expect((await patch(id, { score: 5 })).status).toBe(404);
    expect((await f.admin.get(enrollmentsOf(course.id))).body.enrollments).toEqual([]);
    const history = await f.admin.get(`${enrollmentsOf(course.id)}?state=removed`);
    expect(history.body.enrollments).toEqual([expect.objectContaining({ id, removed_at: expect.any(String), removal_reason: 'removed' })]);
    await f.eventOf('catalog.enrollment.removed', (d) => d.id === id && d.removal_reason === 'removed');
    const again = await f.enroll(course.id, [{ user_id: user.userId }]);
    expect(again.enrollments[0].id).not.toBe(id);
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].enrollments_count).toBe(1);
  });

  it("withdraws a deleted user's open enrollments and keeps their completions", async () => {
    const [open, done] = [await f.publishedCourse({ title: 'Open' }), await f.publishedCourse({ title: 'Done' })];
    const user = await f.newLearner();
    const openId = (await f.enroll(open.id, [{ user_id: user.userId }])).enrollments[0].id;
    const doneId = (await f.enroll(done.id, [{ user_id: user.userId }])).enrollments[0].id;
    await patch(doneId, { state: 'complete' });
    expect((await f.admin.delete(`/api/admin/users/${user.userId}`)).status).toBe(204);
    await eventually(async () => ((await f.admin.get(`${enrollmentsOf(open.id)}?state=removed`)).body.enrollments.length === 1 ? true : undefined));
    const removed = (await f.admin.get(`${enrollmentsOf(open.id)}?state=removed`)).body.enrollments[0];
    expect(removed).toMatchObject({ id: openId, removal_reason: 'user_deleted' });
    expect((await f.admin.get(`${enrollmentsOf(done.id)}?state=complete`)).body.enrollments.map((e: { id: number }) => e.id)).toEqual([doneId]);
    // Publishing with re_enroll gives the completed learners a new attempt, but not a deleted one.
    expect((await f.admin.post(`${COURSES}/${done.id}/publish`, { re_enroll: true })).status).toBe(200);
    expect((await f.admin.get(enrollmentsOf(done.id))).body.enrollments.map((e: { id: number; state: string }) => [e.id, e.state])).toEqual([[doneId, 'complete']]);
  });

  it('leaves no open enrollment of users deleted while they are being enrolled', async () => {
    const course = await f.publishedCourse({ title: 'Leaving' });
    const users = await Promise.all(Array.from({ length: 4 }, () => f.newLearner()));
    const [deleted, kept] = [users.slice(0, 2), users.slice(2)];
    // Identity vouched for all four; two are deleted, and catalog has handled that, before the enrollment's transaction begins.
    const enrolled = await f.enrollingHeld(course.id, () => f.admin.post(enrollmentsOf(course.id), { enrollments: users.map((u) => ({ user_id: u.userId })) }), async () => {
      for (const u of deleted) expect((await f.admin.delete(`/api/admin/users/${u.userId}`)).status).toBe(204);
      for (const u of deleted) await f.identityEventsHandled('catalog-enrollments-user-deleted', 'identity.user.deleted', 'user_id', u.userId, 1);
    });
    expect(enrolled.status).toBe(201);
    const learners = (body: { enrollments: { links: { learner: { id: number } } }[] }) => body.enrollments.map((e) => e.links.learner.id).sort((a, b) => a - b);
    expect(learners(enrolled.body)).toEqual(kept.map((u) => u.userId).sort((a, b) => a - b));
    expect(learners((await f.admin.get(enrollmentsOf(course.id))).body)).toEqual(kept.map((u) => u.userId).sort((a, b) => a - b));
  });

  it("handles a deletion in one account while another account's enrollment of a user in the same lock bucket waits", async () => {
    const course = await f.publishedCourse({ title: 'Neighbours' });
    const [{ account_id: otherAccount }] = await f.t.db.query<{ account_id: number }>('SELECT account_id FROM identity.users WHERE id = $1', [f.cast.stranger.userId]);
    const departing = await f.t.factory.user(otherAccount, ['learner']);
    // A learner of this account whose departure lock bucket (user_id % 32) is the departing user's.
    let learner = await f.newLearner();
    while (learner.userId % 32 !== departing.userId % 32) learner = await f.newLearner();
    // An uncommitted live enrollment of the learner holds the enrollment at its insert, after it took its locks.
    const insert = "INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, state) VALUES ($1, 'CourseTemplate', $2, $3, 'assigned')";
    await holdingLock(f.t.db.url, insert, [f.cast.accountId, Number(course.id), learner.userId], async (held) => {
      const enrolling = f.admin.post(enrollmentsOf(course.id), { enrollments: [{ user_id: learner.userId }] });
      await held.waiters();
      expect((await f.stranger.delete(`/api/admin/users/${departing.userId}`)).status).toBe(204);
      await f.identityEventsHandled('catalog-enrollments-user-deleted', 'identity.user.deleted', 'user_id', departing.userId, 1);
      await held.release('rollback');
      expect((await enrolling).status).toBe(201);
    });
  });

  it("answers 404 for another account's course and enrollment, and 403 outside the author audience", async () => {
    const course = await f.publishedCourse({ title: 'Mine' });
    const user = await f.newLearner();
    const { id } = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments[0];
    expect((await f.stranger.get(enrollmentsOf(course.id))).status).toBe(404);
    expect((await f.stranger.post(enrollmentsOf(course.id), { enrollments: [{ user_id: f.cast.stranger.userId }] })).status).toBe(404);
    expect((await f.stranger.patch(`${ENROLLMENTS}/${id}`, { enrollments: [{ score: 1 }] })).status).toBe(404);
    expect((await f.stranger.delete(`${ENROLLMENTS}/${id}`)).status).toBe(404);
    expect((await f.learner.get(enrollmentsOf(course.id))).status).toBe(403);
    expect((await f.learner.patch(`${ENROLLMENTS}/${id}`, { enrollments: [{ score: 1 }] })).status).toBe(403);
    const [record] = (await f.admin.get(enrollmentsOf(course.id))).body.enrollments;
    expect(record).toMatchObject({ id, score: null });
  });
});
