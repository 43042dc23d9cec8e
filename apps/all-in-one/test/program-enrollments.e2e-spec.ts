import { COURSES, PROGRAMS } from './catalog-fixture.js';
import { type EnrollmentFixture, enrollmentsOf, startEnrollmentFixture } from './enrollment-fixture.js';

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
    // Each course's own due-date rule applies.
    const inA = res.body.enrollments.find((e: { course_template_id: number }) => e.course_template_id === Number(a.id));
    expect(new Date(inA.end_at).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect((await f.author.get(enrollmentsOf(a.id))).body.enrollments).toHaveLength(2);
    await f.eventOf('catalog.enrollment.created', (d) => d.program_id === Number(p.id) && d.course_template_id === Number(a.id));
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
});
