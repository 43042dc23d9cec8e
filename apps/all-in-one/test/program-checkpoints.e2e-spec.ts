import { eventually, queryDatabase, type TestUser, undocumented } from '@lms/testing';
import { COURSES, PROGRAMS, TASKS } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';
import { scorm12Package } from './scorm-packages.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
type Json = Record<string, any>;
const APPROVALS = '/api/author/approvals';
const LEARNER_COURSES = '/api/learner/courses';

/** Checkpoints in programs (issue 22, `blocks_progress`; docs/catalog.md "Checkpoints in programs"). */
describe('checkpoints in programs, end to end', () => {
  let f: EnrollmentFixture;
  const as = (user: TestUser) => f.admin.as(user.token);
  const task = async (fields: Json = {}): Promise<Json> => {
    const res = await f.author.post(TASKS, { tasks: [{ title: 'Sign-off', is_published: true, ...fields }] });
    if (res.status !== 201) throw new Error(`creating a task answered ${res.status}: ${res.text}`);
    return res.body.tasks[0];
  };
  const program = async (items: Json[], fields: Json = {}): Promise<Json> => {
    const res = await f.author.post(PROGRAMS, { programs: [{ title: 'Path', is_published: true, items, ...fields }] });
    if (res.status !== 201) throw new Error(`creating a program answered ${res.status}: ${res.text}`);
    return res.body.programs[0];
  };
  const C = (course: Json) => ({ type: 'CourseTemplate', id: Number(course.id) });
  const T = (t: Json) => ({ type: 'Task', id: Number(t.id) });
  const enrollIn = async (p: Json, learner: TestUser): Promise<Json> => {
    const res = await f.author.post(`${PROGRAMS}/${p.id}/enrollments`, { enrollments: [{ user_id: learner.userId }] });
    if (res.status !== 201) throw new Error(`enrolling answered ${res.status}: ${res.text}`);
    return res.body;
  };
  const courseEnrollment = (body: Json, course: Json): number => body.enrollments.find((e: Json) => e.course_template_id === Number(course.id)).id;
  const taskEnrollment = (body: Json, t: Json): number => body.task_enrollments.find((e: Json) => e.task_id === Number(t.id)).id;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-program-checkpoints');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('holds typed, ordered items beside course_template_ids; the older form keeps checkpoints in place; a deleted task leaves its programs', async () => {
    const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
    const gate = await task({ blocks_progress: true });
    const p = await program([C(a), T(gate), C(b)]);
    expect(p.items).toEqual([
      { type: 'CourseTemplate', id: a.id, position: 1 },
      { type: 'Task', id: gate.id, position: 2 },
      { type: 'CourseTemplate', id: b.id, position: 3 },
    ]);
    expect([p.course_template_ids, p.courses_count]).toEqual([[a.id, b.id], 2]);
    const created = await f.eventOf('catalog.program.created', (d) => d.id === Number(p.id));
    expect(created.data).toMatchObject({ course_template_ids: [Number(a.id), Number(b.id)], items: [C(a), T(gate), C(b)] });
    expect((await f.author.get(`${PROGRAMS}/${p.id}`)).body.programs[0].items).toEqual(p.items);

    // An older client sends courses only: the checkpoint stays after as many courses as before.
    const c = await f.publishedCourse();
    const older = await f.author.patch(`${PROGRAMS}/${p.id}`, { program: { course_template_ids: [Number(c.id), Number(b.id), Number(a.id)] } });
    expect(older.status).toBe(200);
    expect(older.body.programs[0].items.map((i: Json) => [i.type, i.id])).toEqual([['CourseTemplate', c.id], ['Task', gate.id], ['CourseTemplate', b.id], ['CourseTemplate', a.id]]);
    const fewer = await f.author.patch(`${PROGRAMS}/${p.id}`, { program: { course_template_ids: [] } });
    expect(fewer.body.programs[0].items.map((i: Json) => [i.type, i.id])).toEqual([['Task', gate.id]]);

    // Deleting the task takes it out, as archiving a course does.
    const q = await program([C(a), T(gate), C(b)]);
    expect((await f.author.delete(`${TASKS}/${gate.id}`)).status).toBe(204);
    expect((await f.author.get(`${PROGRAMS}/${q.id}`)).body.programs[0].items).toEqual([
      { type: 'CourseTemplate', id: a.id, position: 1 },
      { type: 'CourseTemplate', id: b.id, position: 2 },
    ]);
    await f.eventOf('catalog.program.updated', (d) => d.id === Number(q.id) && Array.isArray(d.items) && (d.items as Json[]).length === 2);
  });

  it('refuses bad item payloads with 400 and changes nothing; another account\'s program and task are 404 (400 when named as an item)', async () => {
    const a = await f.publishedCourse();
    const t = await task();
    const p = await program([C(a), T(t)]);
    const before = (await f.author.get(`${PROGRAMS}/${p.id}`)).body.programs[0];
    const bad: [Json, string | undefined][] = [
      [{ items: [{ type: 'Quiz', id: 1 }] }, undefined],
      [{ items: [{ type: 'Task' }] }, undefined],
      [{ items: [{ type: 'Task', id: 'x' }] }, undefined],
      [{ items: [{ type: 'Task', id: Number(t.id), extra: true }] }, undefined],
      [{ items: [T(t), T(t)] }, undefined],
      [{ items: 'nope' }, undefined],
      [{ items: [T(t)], course_template_ids: [Number(a.id)] }, 'PROGRAM_ITEMS_CONFLICT'],
      [{ items: [{ type: 'Task', id: 999_999 }] }, 'PROGRAM_TASK_INVALID'],
      [{ items: [{ type: 'CourseTemplate', id: 999_999 }] }, 'PROGRAM_COURSE_INVALID'],
    ];
    for (const [program, code] of bad) {
      const res = await f.author.patch(`${PROGRAMS}/${p.id}`, { program: { title: 'Changed', ...program } });
      expect([res.status, res.headers.get('content-type')]).toEqual([400, expect.stringContaining('application/problem+json')]);
      if (code) expect(res.body.code).toBe(code);
    }
    const created = await f.author.post(PROGRAMS, { programs: [{ title: 'Fine', items: [C(a)] }, { title: 'Bad', items: [{ type: 'Task', id: 999_999 }] }] });
    expect([created.status, created.body.errors?.[0]?.field]).toEqual([400, 'programs[1].items[0].id']);
    expect((await f.author.get(`${PROGRAMS}?search=Fine`)).body.programs).toEqual([]);
    const deleted = await task();
    expect((await f.author.delete(`${TASKS}/${deleted.id}`)).status).toBe(204);
    expect((await f.author.patch(`${PROGRAMS}/${p.id}`, { program: { items: [T(deleted)] } })).body.code).toBe('PROGRAM_TASK_INVALID');
    expect((await f.author.get(`${PROGRAMS}/${p.id}`)).body.programs[0]).toEqual(before);

    // Another account: its program and task are not found; naming our task as its item is a 400.
    expect((await f.stranger.get(`${PROGRAMS}/${p.id}`)).status).toBe(404);
    expect((await f.stranger.patch(`${PROGRAMS}/${p.id}`, { program: { items: [] } })).status).toBe(404);
    expect((await f.stranger.post(`${PROGRAMS}/${p.id}/enrollments`, { enrollments: [{ user_id: 1 }] })).status).toBe(404);
    expect((await f.stranger.get(`${TASKS}/${t.id}`)).status).toBe(404);
    const foreign = await f.stranger.post(PROGRAMS, { programs: [{ title: 'Theirs', items: [T(t)] }] });
    expect([foreign.status, foreign.body.code]).toEqual([400, 'PROGRAM_TASK_INVALID']);
    expect((await f.author.get(`${PROGRAMS}/${p.id}`)).body.programs[0]).toEqual(before);
  });

  it('course A, blocking task T (with approval), course B: A starts, B is 400 BLOCKED_BY_CHECKPOINT until T is approved', async () => {
    const approver = f.otherAuthorUser;
    const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
    const gate = await task({ title: 'Manager sign-off', blocks_progress: true, requires_approval: true, default_approver_type: 'user', default_approver_id: approver.userId });
    const p = await program([C(a), T(gate), C(b)]);
    const learner = await f.newLearner();
    const body = await enrollIn(p, learner);
    // The answer is what /api/openapi.json documents, and nothing more (task_enrollments, skipped, skipped_courses, skipped_tasks).
    expect(await undocumented(f.admin, 'POST', `${PROGRAMS}/:id/enrollments`, 201, body)).toBeUndefined();
    // Enrolling in the program enrolls in its checkpoint too, carrying the program.
    expect(body.task_enrollments).toEqual([expect.objectContaining({ task_id: Number(gate.id), program_id: Number(p.id), state: 'assigned', approval: null })]);
    expect(body.skipped_tasks).toEqual([]);
    const [inA, inB, inT] = [courseEnrollment(body, a), courseEnrollment(body, b), taskEnrollment(body, gate)];
    const mine = as(learner);

    // The learner sees what holds B, on the learner and mobile items.
    // Both ids are Strings, as the task's and the program's own records have them.
    const blockedBy = { task_id: gate.id, title: 'Manager sign-off', program_id: p.id };
    expect([typeof gate.id, typeof p.id]).toEqual(['string', 'string']);
    expect((await mine.get(`${LEARNER_COURSES}/${inB}`)).body.courses[0].blocked_by).toEqual(blockedBy);
    expect((await mine.get(`${LEARNER_COURSES}/${inA}`)).body.courses[0].blocked_by).toBeNull();
    expect((await mine.get(`/api/mobile/learner/courses/${b.id}`)).body.enrollment.blocked_by).toEqual(blockedBy);
    expect((await mine.get(`/api/mobile/learner/tasks/${gate.id}`)).body.enrollment.blocked_by).toBeNull();

    const refused = await mine.post(`${LEARNER_COURSES}/${inB}/complete`, {});
    expect([refused.status, refused.headers.get('content-type'), refused.body.code]).toEqual([400, expect.stringContaining('application/problem+json'), 'BLOCKED_BY_CHECKPOINT']);
    expect(refused.body.detail).toContain(`checkpoint ${gate.id}`);
    expect(refused.body.errors).toEqual([{ field: 'blocked_by', message: `task ${gate.id} of program ${p.id} is not complete` }]);
    expect((await mine.get(`${LEARNER_COURSES}/${inB}`)).body.courses[0].state).toBe('assigned');
    // Items before the checkpoint are open.
    expect((await mine.post(`${LEARNER_COURSES}/${inA}/complete`, {})).status).toBe(200);

    // Submitting T waits for approval: B stays blocked; approval opens it.
    const submitted = await mine.post(`/api/learner/tasks/${inT}/complete`, {});
    expect([submitted.status, submitted.body.enrollments[0].approval.state]).toEqual([200, 'incomplete']);
    expect((await mine.post(`${LEARNER_COURSES}/${inB}/complete`, {})).body.code).toBe('BLOCKED_BY_CHECKPOINT');
    const approved = await as(approver).post(`${APPROVALS}/${submitted.body.enrollments[0].approval.id}/approve`, {});
    expect(approved.status).toBe(200);
    expect((await mine.get(`${LEARNER_COURSES}/${inB}`)).body.courses[0].blocked_by).toBeNull();
    const done = await mine.post(`${LEARNER_COURSES}/${inB}/complete`, {});
    expect([done.status, done.body.courses[0].state]).toEqual([200, 'complete']);
  });

  it('a later checkpoint is blocked too (evidence and complete); a non-blocking task blocks nothing; a course outside the program is open', async () => {
    const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
    const soft = await task({ title: 'Optional reflection' });
    const gate = await task({ title: 'Gate', blocks_progress: true });
    const later = await task({ title: 'Later', requires_evidence: true });
    const p = await program([T(soft), C(a), T(gate), T(later), C(b)]);
    const learner = await f.newLearner();
    const body = await enrollIn(p, learner);
    const mine = as(learner);
    // The non-blocking task holds nothing after it.
    expect((await mine.post(`${LEARNER_COURSES}/${courseEnrollment(body, a)}/complete`, {})).status).toBe(200);
    // The task after the gate: neither evidence nor complete.
    const inLater = taskEnrollment(body, later);
    const evidence = await mine.post(`/api/learner/tasks/${inLater}/evidence`, { evidence: { text: 'too early' } });
    expect([evidence.status, evidence.body.code]).toEqual([400, 'BLOCKED_BY_CHECKPOINT']);
    expect((await mine.post(`/api/learner/tasks/${inLater}/complete`, {})).body.code).toBe('BLOCKED_BY_CHECKPOINT');
    expect((await mine.get(`/api/mobile/learner/tasks/${later.id}`)).body.enrollment).toMatchObject({ state: 'assigned', blocked_by: { task_id: gate.id } });
    expect((await f.author.get(`${TASKS}/${later.id}/enrollments`)).body.enrollments[0].evidence).toEqual([]);

    // Another learner reaching B outside the program only is not held.
    const outsider = await f.newLearner();
    const direct = await f.enroll(b.id, [{ user_id: outsider.userId }]);
    expect((await as(outsider).post(`${LEARNER_COURSES}/${direct.enrollments[0].id}/complete`, {})).status).toBe(200);

    // Completing the gate (no approval) opens everything after it.
    expect((await mine.post(`/api/learner/tasks/${taskEnrollment(body, gate)}/complete`, {})).body.enrollments[0].state).toBe('complete');
    expect((await mine.post(`/api/learner/tasks/${inLater}/evidence`, { evidence: { text: 'now' } })).status).toBe(201);
    expect((await mine.post(`${LEARNER_COURSES}/${courseEnrollment(body, b)}/complete`, {})).status).toBe(200);
  });

  it("holds seeing and answering a course's slides behind an incomplete gate (reading is not held), and opens them with the gate", async () => {
    const course = await f.createCourse({}, f.author);
    const added = await f.author.post(`${COURSES}/${course.id}/slides`, {
      slides: [
        { draft_attributes: { title: 'Intro', type: 'content', allow_comments: null } },
        { draft_attributes: { title: 'Sky', type: 'quiz', allow_comments: null, question: { prompt: 'Sky?', choices: [{ id: 'a', text: 'Blue', correct: true }, { id: 'b', text: 'Red', correct: false }] } } },
      ],
    });
    expect(added.status).toBe(201);
    const [intro, quiz] = added.body.slides.map((s: Json) => s.id);
    expect((await f.author.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    const gate = await task({ title: 'Slides gate', blocks_progress: true });
    const learner = await f.newLearner();
    const gated = await program([T(gate), C(course)]);
    const body = await enrollIn(gated, learner);
    const inCourse = courseEnrollment(body, course);
    const mine = as(learner);
    const slides = `${LEARNER_COURSES}/${course.id}/slides`;

    const viewed = await mine.post(`${slides}/${intro}/view`);
    expect([viewed.status, viewed.body?.code, viewed.body?.errors]).toEqual([400, 'BLOCKED_BY_CHECKPOINT', [{ field: 'blocked_by', message: `task ${gate.id} of program ${gated.id} is not complete` }]]);
    const answered = await mine.post(`${slides}/${quiz}/responses`, { response: { choice_ids: ['a'] } });
    expect([answered.status, answered.body.code]).toEqual([400, 'BLOCKED_BY_CHECKPOINT']);
    expect((await mine.get(`${slides}/${quiz}`)).body.slides[0].response).toBeNull();
    expect((await mine.get(`${LEARNER_COURSES}/${inCourse}`)).body.courses[0]).toMatchObject({ state: 'assigned', progress: 0, score: null });
    expect(await queryDatabase(f.t.db.url, 'SELECT count(*)::int AS n FROM catalog.slide_responses WHERE enrollment_id = $1', [inCourse])).toEqual([{ n: 0 }]);

    expect((await mine.post(`/api/learner/tasks/${taskEnrollment(body, gate)}/complete`, {})).status).toBe(200);
    expect((await mine.post(`${slides}/${intro}/view`)).status).toBe(204);
    expect((await mine.post(`${slides}/${quiz}/responses`, { response: { choice_ids: ['a'] } })).status).toBe(201);
    expect((await mine.get(`${LEARNER_COURSES}/${inCourse}`)).body.courses[0]).toMatchObject({ state: 'active', progress: 2, score: 100 });
  });

  it('holds the SCORM launch behind an incomplete gate (launch_url and the mobile redirect), and opens it with the gate', async () => {
    const course = await f.publishedCourse({ course_type: 'scorm' });
    const put = await fetch(`${f.t.api.baseUrl}${COURSES}/${course.id}/scorm_package`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${f.t.token}`, 'content-type': 'application/zip' },
      body: scorm12Package(),
    });
    expect(put.status).toBe(200);
    const gate = await task({ title: 'Safety briefing', blocks_progress: true });
    const learner = await f.newLearner();
    const body = await enrollIn(await program([T(gate), C(course)]), learner);
    const inCourse = courseEnrollment(body, course);
    const mine = as(learner);
    for (const launch of [mine.get(`${LEARNER_COURSES}/${inCourse}/launch_url`), mine.post(`${LEARNER_COURSES}/${inCourse}/launch_url`, {})]) {
      const refused = await launch;
      expect([refused.status, refused.body.code]).toEqual([400, 'BLOCKED_BY_CHECKPOINT']);
    }
    const mobile = await fetch(`${f.t.api.baseUrl}${LEARNER_COURSES}/${inCourse}/mobile_scorm_launch_url`, { headers: { authorization: `Bearer ${learner.token}` }, redirect: 'manual' });
    expect([mobile.status, ((await mobile.json()) as Json).code]).toEqual([400, 'BLOCKED_BY_CHECKPOINT']);
    // No attempt was made while held.
    expect(await queryDatabase(f.t.db.url, 'SELECT count(*)::int AS n FROM catalog.scorm_registrations WHERE enrollment_id = $1', [inCourse])).toEqual([{ n: 0 }]);

    expect((await mine.post(`/api/learner/tasks/${taskEnrollment(body, gate)}/complete`, {})).status).toBe(200);
    expect((await mine.get(`${LEARNER_COURSES}/${inCourse}/launch_url`)).body.url).toMatch(/^http:\/\/[^/]+\/scorm\/launch\//);
  });

  it('with several programs, any program holding an incomplete gate before the course blocks it', async () => {
    const b = await f.publishedCourse();
    const gate = await task({ title: 'Gate two', blocks_progress: true });
    const open = await program([C(b)]);
    const gated = await program([T(gate), C(b)]);
    const learner = await f.newLearner();
    const first = await enrollIn(open, learner);
    const inB = courseEnrollment(first, b);
    const second = await enrollIn(gated, learner);
    expect(second.skipped).toEqual([expect.objectContaining({ user_id: learner.userId, course_template_id: b.id, enrollment_id: inB })]);
    const refused = await as(learner).post(`${LEARNER_COURSES}/${inB}/complete`, {});
    expect([refused.status, refused.body.code]).toEqual([400, 'BLOCKED_BY_CHECKPOINT']);
    expect((await as(learner).get(`${LEARNER_COURSES}/${inB}`)).body.courses[0].blocked_by).toEqual({ task_id: gate.id, title: 'Gate two', program_id: gated.id });
    expect((await as(learner).post(`/api/learner/tasks/${taskEnrollment(second, gate)}/complete`, {})).status).toBe(200);
    expect((await as(learner).post(`${LEARNER_COURSES}/${inB}/complete`, {})).status).toBe(200);
  });

  it("counts checkpoints towards the program's completion: the program completes with its final sign-off's approval, once", async () => {
    const approver = f.otherAuthorUser;
    const a = await f.publishedCourse();
    const signOff = await task({ title: 'Final sign-off', requires_approval: true, default_approver_type: 'user', default_approver_id: approver.userId });
    const unpublished = await task({ title: 'Not yet', is_published: false });
    const p = await program([C(a), T(signOff), T(unpublished)]);
    const learner = await f.newLearner();
    const body = await enrollIn(p, learner);
    const standing = async () => (await f.author.get(`${PROGRAMS}/${p.id}/enrollments`)).body.program_enrollments[0];
    expect(await standing()).toMatchObject({ state: 'incomplete', courses_count: 1, completed_courses_count: 0, tasks_count: 1, completed_tasks_count: 0 });

    // Every course done is not the program done while its checkpoint is open, nor while it waits for approval.
    const mine = as(learner);
    expect((await mine.post(`${LEARNER_COURSES}/${courseEnrollment(body, a)}/complete`, {})).status).toBe(200);
    await eventually(async () => ((await standing()).completed_courses_count === 1 ? true : undefined));
    const submitted = await mine.post(`/api/learner/tasks/${taskEnrollment(body, signOff)}/complete`, {});
    expect(submitted.body.enrollments[0].approval.state).toBe('incomplete');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await standing()).toMatchObject({ state: 'incomplete', completed_at: null, completed_courses_count: 1, completed_tasks_count: 0 });

    // The approval completes the checkpoint, and with it the program (the unpublished task is not counted).
    expect((await as(approver).post(`${APPROVALS}/${submitted.body.enrollments[0].approval.id}/approve`, {})).status).toBe(200);
    const done = await eventually(async () => {
      const e = await standing();
      return e.state === 'complete' ? e : undefined;
    });
    expect(done).toMatchObject({ courses_count: 1, completed_courses_count: 1, tasks_count: 1, completed_tasks_count: 1, completed_at: expect.any(String) });
    const [approvedEnrollment] = (await f.author.get(`${TASKS}/${signOff.id}/enrollments`)).body.enrollments;
    expect(done.completed_at).toBe(approvedEnrollment.completed_at);
    await f.eventOf('catalog.enrollment.completed', (d) => d.program_id === Number(p.id));
    expect(f.events.filter((e) => e.type === 'catalog.enrollment.completed' && (e.data as { program_id?: number }).program_id === Number(p.id))).toHaveLength(1);

    // A program of checkpoints only completes with them too.
    const only = await program([T(await task({ title: 'Only step' }))]);
    const second = await enrollIn(only, learner);
    expect((await mine.post(`/api/learner/tasks/${second.task_enrollments[0].id}/complete`, {})).status).toBe(200);
    await eventually(async () => ((await f.author.get(`${PROGRAMS}/${only.id}/enrollments?state=complete`)).body.program_enrollments.length === 1 ? true : undefined));
  });

  it('an author takes a learner out of a checkpoint (204): the gate opens, the pending approval goes, and the program completes without it', async () => {
    const approver = f.otherAuthorUser;
    const [a, b] = [await f.publishedCourse(), await f.publishedCourse()];
    const gate = await task({ title: 'Waivable gate', blocks_progress: true, requires_approval: true, default_approver_type: 'user', default_approver_id: approver.userId });
    const p = await program([C(a), T(gate), C(b)]);
    const learner = await f.newLearner();
    const body = await enrollIn(p, learner);
    const mine = as(learner);
    const inT = taskEnrollment(body, gate);
    expect((await mine.post(`${LEARNER_COURSES}/${courseEnrollment(body, a)}/complete`, {})).status).toBe(200);
    const submitted = await mine.post(`/api/learner/tasks/${inT}/complete`, {});
    const approvalId = submitted.body.enrollments[0].approval.id;
    expect((await as(approver).get(APPROVALS)).body.approvals.map((x: Json) => x.id)).toContain(approvalId);
    expect((await mine.post(`${LEARNER_COURSES}/${courseEnrollment(body, b)}/complete`, {})).body.code).toBe('BLOCKED_BY_CHECKPOINT');

    // Who may not: the learner (403), another account (404); another task's path or a course enrollment's id is a 404.
    const path = `${TASKS}/${gate.id}/enrollments/${inT}`;
    expect((await mine.delete(path)).status).toBe(403);
    expect((await f.stranger.delete(path)).status).toBe(404);
    const other = await task({ title: 'Other' });
    expect((await f.author.delete(`${TASKS}/${other.id}/enrollments/${inT}`)).body.code).toBe('ENROLLMENT_NOT_FOUND');
    expect((await f.author.delete(`${TASKS}/${gate.id}/enrollments/${courseEnrollment(body, a)}`)).status).toBe(404);
    expect((await f.author.delete(`${TASKS}/${gate.id}/enrollments/abc`)).status).toBe(400);

    const removed = await f.author.delete(path);
    expect(removed.status).toBe(204);
    expect((await f.author.delete(path)).status).toBe(404);
    expect((await f.author.get(`${TASKS}/${gate.id}/enrollments?state=removed`)).body.enrollments).toEqual([expect.objectContaining({ id: inT, removal_reason: 'removed' })]);
    await f.eventOf('catalog.enrollment.removed', (d) => d.id === inT);
    // The approval no longer waits: not listed, not decidable; the gate holds no more.
    expect((await as(approver).get(APPROVALS)).body.approvals.map((x: Json) => x.id)).not.toContain(approvalId);
    const late = await as(approver).post(`${APPROVALS}/${approvalId}/approve`, {});
    expect([late.status, late.body.code]).toEqual([404, 'APPROVAL_NOT_FOUND']);
    expect((await mine.get(`${LEARNER_COURSES}/${courseEnrollment(body, b)}`)).body.courses[0].blocked_by).toBeNull();
    expect((await mine.post(`/api/learner/tasks/${inT}/complete`, {})).status).toBe(404);

    // The program completes with B: the checkpoint the learner was taken out of is not theirs to do.
    expect((await mine.post(`${LEARNER_COURSES}/${courseEnrollment(body, b)}/complete`, {})).status).toBe(200);
    const done = await eventually(async () => {
      const [e] = (await f.author.get(`${PROGRAMS}/${p.id}/enrollments?state=complete`)).body.program_enrollments;
      return e;
    });
    expect(done).toMatchObject({ user_id: String(learner.userId), courses_count: 2, completed_courses_count: 2, tasks_count: 0, completed_tasks_count: 0 });
  });

  it('completes the program when the learner is taken out of the last open item', async () => {
    const a = await f.publishedCourse();
    const signOff = await task({ title: 'Last step' });
    const p = await program([C(a), T(signOff)]);
    const learner = await f.newLearner();
    const body = await enrollIn(p, learner);
    expect((await as(learner).post(`${LEARNER_COURSES}/${courseEnrollment(body, a)}/complete`, {})).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await f.author.get(`${PROGRAMS}/${p.id}/enrollments?state=complete`)).body.program_enrollments).toEqual([]);
    expect((await f.author.delete(`${TASKS}/${signOff.id}/enrollments/${taskEnrollment(body, signOff)}`)).status).toBe(204);
    await eventually(async () => ((await f.author.get(`${PROGRAMS}/${p.id}/enrollments?state=complete`)).body.program_enrollments.length === 1 ? true : undefined));
  });
});
