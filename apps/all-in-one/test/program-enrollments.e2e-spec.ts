import { eventually, queryDatabase, undocumented } from '@lms/testing';
import { COURSES, PROGRAMS } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, enrollmentsOf, startEnrollmentFixture } from './enrollment-fixture.js';

describe('program enrollments, end to end', () => {
  let f: EnrollmentFixture;
  const enrollIn = (programId: string, body: unknown, api = f.author) => api.post(`${PROGRAMS}/${programId}/enrollments`, body);
  const program = async (fields: Record<string, unknown>) => {
    const res = await f.author.post(PROGRAMS, { programs: [{ title: 'Path', is_published: true, ...fields }] });
    if (res.status !== 201) throw new Error(`creating a program answered ${res.status}: ${res.text}`);
    return res.body.programs[0];
  };

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-program-enrollments');
  });
  afterAll(async () => {
    await f?.close();
  });

  it("enrolls users in every published course of the program (201), each enrollment carrying program_id; unpublished courses are reported", async () => {
    const [a, b] = [await f.publishedCourse({ default_days_until_due: 7 }), await f.publishedCourse()];
    const draft = await f.createCourse();
    const p = await program({ course_template_ids: [Number(b.id), Number(draft.id), Number(a.id)] });
    const [ann, bob] = [await f.newLearner(), await f.newLearner()];
    const res = await enrollIn(p.id, { enrollments: [{ user_id: ann.userId }, { user_id: bob.userId, required: false }] });
    expect(res.status).toBe(201);
    expect(res.body.enrollments).toHaveLength(4);
    expect(res.body.enrollments.map((e: { course_template_id: number; links: { learner: { id: string } } }) => [e.course_template_id, Number(e.links.learner.id)])).toEqual([
      [Number(b.id), ann.userId], [Number(b.id), bob.userId], [Number(a.id), ann.userId], [Number(a.id), bob.userId],
    ]);
    expect(res.body.enrollments.every((e: { program_id: number; state: string }) => e.program_id === Number(p.id) && e.state === 'assigned')).toBe(true);
    expect(res.body.enrollments.filter((e: { required: boolean }) => !e.required)).toHaveLength(2);
    expect(res.body.linked.learners.map((l: { id: string }) => Number(l.id)).sort()).toEqual([ann.userId, bob.userId].sort());
    expect(res.body.skipped).toEqual([]);
    expect(res.body.skipped_courses).toEqual([{ course_template_id: draft.id, reason: 'not_published' }]);
    expect(await undocumented(f.author, 'POST', `${PROGRAMS}/:id/enrollments`, 201, res.body)).toBeUndefined();
    // Each course's own due-date rule applies.
    const inA = res.body.enrollments.find((e: { course_template_id: number }) => e.course_template_id === Number(a.id));
    expect(new Date(inA.end_at).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect((await f.author.get(enrollmentsOf(a.id))).body.enrollments).toHaveLength(2);
    await f.eventOf('catalog.enrollment.created', (d) => d.program_id === Number(p.id) && d.course_template_id === Number(a.id));
  });

  it('enrolls learners at once into programs that hold the same courses in opposite orders: every request 201, nothing lost', async () => {
    for (let round = 0; round < 3; round++) {
      const courses = [await f.publishedCourse(), await f.publishedCourse(), await f.publishedCourse()].map((c) => Number(c.id));
      const [forward, backward] = [await program({ course_template_ids: courses }), await program({ course_template_ids: [...courses].reverse() })];
      const learners = await Promise.all(Array.from({ length: 8 }, () => f.newLearner()));
      const answers = await Promise.all(learners.map((l, i) => enrollIn((i % 2 ? backward : forward).id, { enrollments: [{ user_id: l.userId }] }, i % 2 ? f.admin : f.author)));
      expect(answers.map((res) => [res.status, res.body.enrollments?.length])).toEqual(learners.map(() => [201, 3]));
      // Answered in each program's own order.
      expect(answers[1].body.enrollments.map((e: { course_template_id: number }) => e.course_template_id)).toEqual([...courses].reverse());
    }
  });

  it('skips and reports users enrolled in a course already, and enrolls them in the others', async () => {
    const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
    const cy = await f.newLearner();
    const direct = await f.enroll(a.id, [{ user_id: cy.userId }]);
    const p = await program({ course_template_ids: [Number(a.id), Number(b.id)] });
    const res = await enrollIn(p.id, { enrollments: [{ user_id: cy.userId }] });
    expect(res.status).toBe(201);
    expect(res.body.enrollments.map((e: { course_template_id: number }) => e.course_template_id)).toEqual([Number(b.id)]);
    expect(res.body.skipped).toEqual([{ user_id: cy.userId, reason: 'already_enrolled', enrollment_id: direct.enrollments[0].id, course_template_id: a.id }]);
    expect(await undocumented(f.author, 'POST', `${PROGRAMS}/:id/enrollments`, 201, res.body)).toBeUndefined();
    const again = await enrollIn(p.id, { enrollments: [{ user_id: cy.userId }] });
    expect(again.status).toBe(201);
    expect(again.body.enrollments).toEqual([]);
    expect(again.body.skipped).toHaveLength(2);
  });

  it('refuses with 400 and enrolls nobody: an unknown user, an unpublished program, bad entries', async () => {
    const a = await f.publishedCourse();
    const p = await program({ course_template_ids: [Number(a.id)] });
    const dee = await f.newLearner();
    for (const body of [{ enrollments: [] }, { enrollments: [{ user_id: 'x' }] }, { enrollments: [{ group_id: 5 }] }, { enrollments: [{ user_id: dee.userId, end_at: 'soon' }] }, { users: [] }]) {
      const res = await enrollIn(p.id, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    const unknown = await enrollIn(p.id, { enrollments: [{ user_id: dee.userId }, { user_id: 999_999 }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('ENROLLMENT_LEARNER_INVALID');
    const unpublished = await program({ is_published: false, course_template_ids: [Number(a.id)] });
    const refused = await enrollIn(unpublished.id, { enrollments: [{ user_id: dee.userId }] });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('PROGRAM_NOT_PUBLISHED');
    expect((await f.author.get(enrollmentsOf(a.id))).body.enrollments).toEqual([]);
  });

  it('is a 404 for another account, an unknown or deleted program; learners are outside the audience', async () => {
    const a = await f.publishedCourse();
    const p = await program({ course_template_ids: [Number(a.id)] });
    const eve = await f.newLearner();
    expect((await enrollIn(p.id, { enrollments: [{ user_id: eve.userId }] }, f.stranger)).status).toBe(404);
    expect((await enrollIn('999999', { enrollments: [{ user_id: eve.userId }] })).status).toBe(404);
    expect((await enrollIn(p.id, { enrollments: [{ user_id: eve.userId }] }, f.learner)).status).toBe(403);
    expect((await f.author.delete(`${PROGRAMS}/${p.id}`)).status).toBe(204);
    expect((await enrollIn(p.id, { enrollments: [{ user_id: eve.userId }] })).status).toBe(404);
    expect((await f.author.get(`${COURSES}/${a.id}`)).body.course_templates[0].enrollments_count).toBe(0);
  });

  it('enrolls learners while the courses of the program are archived: no deadlock, and nobody is enrolled in an archived course', async () => {
    const rounds = await Promise.all(Array.from({ length: 4 }, async () => {
      const [a, b, c] = [await f.publishedCourse(), await f.publishedCourse(), await f.publishedCourse()];
      const p = await program({ course_template_ids: [Number(a.id), Number(b.id), Number(c.id)] });
      return { p, b, learners: [await f.newLearner(), await f.newLearner()] };
    }));
    const answers = await Promise.all(rounds.flatMap(({ p, b, learners }) => [
      ...learners.map((l) => enrollIn(p.id, { enrollments: [{ user_id: l.userId }] })),
      f.admin.delete(`${COURSES}/${b.id}`),
    ]));
    expect(answers.map((r) => `${r.status} ${r.status >= 400 ? r.text : ''}`.trim())).toEqual(rounds.flatMap(() => ['201', '201', '204']));
    for (const { p, b } of rounds) {
      expect((await f.author.get(`${PROGRAMS}/${p.id}`)).body.programs[0].course_template_ids).not.toContain(b.id);
    }
  });

  it('reaches every learner with a course of the program published while they are being enrolled', async () => {
    // The publish starts a little later each round, so one of them lands while the enrollment is under way;
    // the draft comes first, so the enrollment's work in the courses after it is the window it falls in.
    for (const delayMs of [0, 10, 20, 35, 50, 80]) {
      const [draft, a, b] = [await f.createCourse(), await f.publishedCourse(), await f.publishedCourse()];
      const p = await program({ course_template_ids: [Number(draft.id), Number(a.id), Number(b.id)] });
      const learners = await Promise.all(Array.from({ length: 8 }, () => f.newLearner()));
      const [enrolled, published] = await Promise.all([
        enrollIn(p.id, { enrollments: learners.map((l) => ({ user_id: l.userId })) }),
        new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => f.admin.post(`${COURSES}/${draft.id}/publish`, {})),
      ]);
      expect([enrolled.status, published.status]).toEqual([201, 200]);
      const reached = await eventually(async () => {
        const rows = (await f.author.get(`${enrollmentsOf(draft.id)}?per_page=100`)).body.enrollments;
        return rows.length >= learners.length ? rows : undefined;
      }).catch(() => Promise.reject(new Error(`a learner was missed by the course published ${delayMs} ms after their enrollment began`)));
      expect(reached.map((e: { links: { learner: { id: number } } }) => e.links.learner.id).sort()).toEqual(learners.map((l) => l.userId).sort());
      expect(reached.every((e: { program_id: number }) => e.program_id === Number(p.id))).toBe(true);
    }
  });

  describe('the program enrollment', () => {
    const complete = (id: number, completedAt: string) => f.author.patch(`${ENROLLMENTS}/${id}`, { enrollments: [{ completed_at: completedAt }] });
    const programEnrollments = (programId: string, query = '') => f.author.get(`${PROGRAMS}/${programId}/enrollments${query}`);

    it('is made once per learner, listed with the learner\'s standing, and completes (once) with the last course', async () => {
      const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
      const p = await program({ course_template_ids: [Number(a.id), Number(b.id)] });
      const fay = await f.newLearner();
      const res = await enrollIn(p.id, { enrollments: [{ user_id: fay.userId, end_at: '2031-01-01T00:00:00Z' }] });
      expect(res.status).toBe(201);
      expect(res.body.linked.program_enrollments).toEqual([
        expect.objectContaining({ program_id: p.id, user_id: String(fay.userId), state: 'incomplete', required: true, end_at: '2031-01-01T00:00:00.000Z', completed_at: null, courses_count: 2, completed_courses_count: 0 }),
      ]);
      const programEnrollmentId = res.body.linked.program_enrollments[0].id;
      // Enrolling again keeps the one program enrollment.
      expect((await enrollIn(p.id, { enrollments: [{ user_id: fay.userId }] })).body.linked.program_enrollments.map((e: { id: string }) => e.id)).toEqual([programEnrollmentId]);

      const [inA, inB] = [a.id, b.id].map((courseId) => res.body.enrollments.find((e: { course_template_id: number }) => e.course_template_id === Number(courseId)).id);
      expect((await complete(inA, '2026-03-01T10:00:00Z')).status).toBe(200);
      await eventually(async () => ((await programEnrollments(p.id)).body.program_enrollments[0]?.completed_courses_count === 1 ? true : undefined));
      expect((await programEnrollments(p.id)).body.program_enrollments[0]).toMatchObject({ state: 'incomplete', completed_at: null });
      expect((await complete(inB, '2026-03-02T10:00:00Z')).status).toBe(200);
      const done = await eventually(async () => {
        const [e] = (await programEnrollments(p.id, '?state=complete')).body.program_enrollments;
        return e;
      });
      expect(done).toMatchObject({ id: programEnrollmentId, state: 'complete', completed_at: '2026-03-02T10:00:00.000Z', courses_count: 2, completed_courses_count: 2 });
      expect((await programEnrollments(p.id, '?state=incomplete')).body.program_enrollments).toEqual([]);
      // The user summary counts the two courses and the program, each once.
      const summary = await f.summaryOnce(fay.userId, 3);
      expect(summary).toMatchObject({ completed_courses: 2, completed_programs: 1, all: 3 });
      await f.eventOf('catalog.enrollment.completed', (d) => d.program_id === Number(p.id) && d.enrollment_id === Number(programEnrollmentId));
      expect((await programEnrollments(p.id, '?state=done')).status).toBe(400);
      expect((await f.learner.get(`${PROGRAMS}/${p.id}/enrollments`)).status).toBe(403);
    });

    it('completes once when its courses complete at the same moment', async () => {
      const courses = [await f.publishedCourse(), await f.publishedCourse(), await f.publishedCourse()];
      const p = await program({ course_template_ids: courses.map((c) => Number(c.id)) });
      const kim = await f.newLearner();
      const res = await enrollIn(p.id, { enrollments: [{ user_id: kim.userId }] });
      const statuses = await Promise.all(res.body.enrollments.map((e: { id: number }) => complete(e.id, '2026-05-01T00:00:00Z').then((r) => r.status)));
      expect(statuses).toEqual([200, 200, 200]);
      await eventually(async () => ((await programEnrollments(p.id)).body.program_enrollments[0]?.state === 'complete' ? true : undefined));
      await f.eventOf('catalog.enrollment.completed', (d) => d.program_id === Number(p.id));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(f.events.filter((e) => e.type === 'catalog.enrollment.completed' && (e.data as { program_id?: number }).program_id === Number(p.id))).toHaveLength(1);
    });

    it('completes at once for a learner who had completed every course already', async () => {
      const a = await f.publishedCourse();
      const gus = await f.newLearner();
      const { id } = (await f.enroll(a.id, [{ user_id: gus.userId }])).enrollments[0];
      expect((await complete(id, '2026-04-01T00:00:00Z')).status).toBe(200);
      const p = await program({ course_template_ids: [Number(a.id)] });
      const res = await enrollIn(p.id, { enrollments: [{ user_id: gus.userId }] });
      expect(res.body.skipped).toHaveLength(1);
      await eventually(async () => ((await programEnrollments(p.id)).body.program_enrollments[0]?.state === 'complete' ? true : undefined));
    });

    it('completes for a learner who has done everything left when the rest leaves the program; an unpublished course completes no one', async () => {
      const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
      const p = await program({ course_template_ids: [Number(a.id), Number(b.id)] });
      const [lou, max] = [await f.newLearner(), await f.newLearner()];
      const res = await enrollIn(p.id, { enrollments: [{ user_id: lou.userId }, { user_id: max.userId }] });
      const inA = res.body.enrollments.filter((e: { course_template_id: number }) => e.course_template_id === Number(a.id));
      const louInA = inA.find((e: { links: { learner: { id: number } } }) => e.links.learner.id === lou.userId).id;
      expect((await complete(louInA, '2026-06-01T00:00:00Z')).status).toBe(200);
      await eventually(async () => ((await programEnrollments(p.id, '?state=incomplete')).body.program_enrollments.some((e: { completed_courses_count: number }) => e.completed_courses_count === 1) ? true : undefined));
      // Taking B away to edit it completes no one's program.
      expect((await f.admin.patch(`${COURSES}/${b.id}`, { course_template: { is_published: false } })).status).toBe(200);
      await f.eventOf('catalog.course_template.updated', (d) => d.id === Number(b.id));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await programEnrollments(p.id, '?state=complete')).body.program_enrollments).toEqual([]);
      // Taking B out of the program: Lou has done all it holds now, Max has not.
      expect((await f.author.patch(`${PROGRAMS}/${p.id}`, { program: { course_template_ids: [Number(a.id)] } })).status).toBe(200);
      const done = await eventually(async () => {
        const [e] = (await programEnrollments(p.id, '?state=complete')).body.program_enrollments;
        return e;
      });
      expect(done).toMatchObject({ user_id: String(lou.userId), completed_at: '2026-06-01T00:00:00.000Z', courses_count: 1, completed_courses_count: 1 });
      expect((await programEnrollments(p.id, '?state=incomplete')).body.program_enrollments.map((e: { user_id: string }) => e.user_id)).toEqual([String(max.userId)]);
    });

    it('reaches its learners with a course added to the program later, in program order', async () => {
      const [a, later] = [await f.publishedCourse(), await f.publishedCourse()];
      const p = await program({ course_template_ids: [Number(a.id)] });
      const [hal, ida] = [await f.newLearner(), await f.newLearner()];
      expect((await enrollIn(p.id, { enrollments: [{ user_id: hal.userId }, { user_id: ida.userId }] })).status).toBe(201);
      expect((await f.author.patch(`${PROGRAMS}/${p.id}`, { program: { course_template_ids: [Number(a.id), Number(later.id)] } })).status).toBe(200);
      const added = await eventually(async () => {
        const rows = (await f.author.get(enrollmentsOf(later.id))).body.enrollments;
        return rows.length === 2 ? rows : undefined;
      });
      expect(added.every((e: { program_id: number }) => e.program_id === Number(p.id))).toBe(true);
      expect((await programEnrollments(p.id)).body.program_enrollments.map((e: { courses_count: number }) => e.courses_count)).toEqual([2, 2]);
    });

    it('reaches its learners with a course of the program published later, and not before', async () => {
      const [a, draft] = [await f.publishedCourse(), await f.createCourse()];
      const p = await program({ course_template_ids: [Number(a.id), Number(draft.id)] });
      const ned = await f.newLearner();
      expect((await enrollIn(p.id, { enrollments: [{ user_id: ned.userId }] })).status).toBe(201);
      expect((await f.author.get(enrollmentsOf(draft.id))).body.enrollments).toEqual([]);
      expect((await f.admin.post(`${COURSES}/${draft.id}/publish`, {})).status).toBe(200);
      const reached = await eventually(async () => {
        const rows = (await f.author.get(enrollmentsOf(draft.id))).body.enrollments;
        return rows.length === 1 ? rows : undefined;
      });
      expect(reached).toEqual([expect.objectContaining({ program_id: Number(p.id), links: { learner: { id: ned.userId } } })]);
      expect((await programEnrollments(p.id)).body.program_enrollments.map((e: { courses_count: number }) => e.courses_count)).toEqual([2]);
    });

    it('is a 404 for another account\'s program, and a deleted user\'s open program enrollment goes', async () => {
      const a = await f.publishedCourse();
      const p = await program({ course_template_ids: [Number(a.id)] });
      expect((await f.stranger.get(`${PROGRAMS}/${p.id}/enrollments`)).status).toBe(404);
      const jo = await f.newLearner();
      expect((await enrollIn(p.id, { enrollments: [{ user_id: jo.userId }] })).status).toBe(201);
      expect((await f.admin.delete(`/api/admin/users/${jo.userId}`)).status).toBe(204);
      await eventually(async () => ((await programEnrollments(p.id)).body.program_enrollments.length === 0 ? true : undefined));
    });
  });

  // The writes of thousands of rows come last: the consumers' backlog they leave (thousands of events) would
  // hold up the events the tests after them wait for.
  it('enrolls 1,000 learners who completed every course of the program already, and completes their program enrollments, in one request', async () => {
    const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
    const p = await program({ course_template_ids: [Number(a.id), Number(b.id)] });
    // Straight into the tables: 1,000 users and 2,000 completions through the API would be most of this suite's time.
    const userIds = await f.t.factory.learners(f.cast.accountId, 1000);
    await queryDatabase(
      f.t.db.url,
      `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, state, started_at, completed_at, progress)
       SELECT $1, 'CourseTemplate', c, u, 'complete', now() - interval '2 days', now() - interval '1 day', 1 FROM unnest($2::int[]) c CROSS JOIN unnest($3::int[]) u`,
      [f.cast.accountId, [Number(a.id), Number(b.id)], userIds],
    );
    // Each learner's program enrollment completed one transaction at a time after the commit: past the gateway's 5 s, a 504.
    const res = await enrollIn(p.id, { enrollments: userIds.map((id) => ({ user_id: id })) });
    expect([res.status, res.body.enrollments?.length, res.body.skipped?.length]).toEqual([201, 0, 2000]);
    const [records] = await queryDatabase<{ n: number; done: number }>(
      f.t.db.url,
      'SELECT count(*)::int AS n, count(completed_at)::int AS done FROM catalog.program_enrollments WHERE program_id = $1 AND deleted_at IS NULL',
      [Number(p.id)],
    );
    expect(records).toEqual({ n: 1000, done: 1000 });
    const events = await queryDatabase<{ user_id: number }>(
      f.t.db.url,
      `SELECT (payload->'data'->>'user_id')::int AS user_id FROM catalog.outbox WHERE type = 'catalog.enrollment.completed' AND payload->'data'->>'program_id' = $1`,
      [String(p.id)],
    );
    expect(events.map((e) => e.user_id).sort((x, y) => x - y)).toEqual(userIds);
  });
});
