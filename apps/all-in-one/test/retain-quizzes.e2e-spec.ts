import { eventually, queryDatabase } from '@lms/testing';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

const QUIZZES = '/api/learner/retain_quizzes';
const DAY = 86_400_000;

describe('retain quizzes, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-retain-quizzes');
  });
  afterAll(async () => {
    await f?.close();
  });

  /** A learner who completed a retain course (intervals 0 and 3 days): their client and the two quizzes. */
  async function completedLearner(intervals = [3, 0, 3]) {
    const course = await f.publishedCourse({ title: 'Retained', retain: true, retain_intervals: intervals });
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const [enrollment] = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments;
    const res = await api.post(`/api/learner/courses/${enrollment.id}/complete`);
    expect(res.status).toBe(200);
    return { api, course, enrollment, quizzes: res.body.linked.quizzes as Record<string, any>[], completedAt: res.body.courses[0].completed_at as string }; // eslint-disable-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
  }

  it('completing a retain course makes one quiz per interval day count, current when due and scheduled before', async () => {
    const { api, course, enrollment, quizzes, completedAt } = await completedLearner();
    expect(quizzes).toEqual([
      {
        id: expect.any(Number), course_id: Number(course.id), enrollment_id: enrollment.id, state: 'current', progress: 0, score: null, current_question_id: null,
        started_at: null, ended_at: null, due_at: completedAt,
      },
      expect.objectContaining({ course_id: Number(course.id), state: 'scheduled', due_at: new Date(Date.parse(completedAt) + 3 * DAY).toISOString() }),
    ]);
    const shown = await api.get(`${QUIZZES}/${quizzes[0].id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ meta: {}, quizzes: [quizzes[0]] });
    // Time passes (the due moment is moved back): the scheduled quiz is current.
    await queryDatabase(f.t.db.url, `UPDATE catalog.retain_quizzes SET due_at = now() - interval '1 minute' WHERE id = $1`, [quizzes[1].id]);
    expect((await api.get(`${QUIZZES}/${quizzes[1].id}`)).body.quizzes[0].state).toBe('current');
    // A course without retain makes none.
    const plain = await f.publishedCourse();
    const user = await f.newLearner();
    const [e] = (await f.enroll(plain.id, [{ user_id: user.userId }])).enrollments;
    expect((await f.admin.as(user.token).post(`/api/learner/courses/${e.id}/complete`)).body.linked.quizzes).toEqual([]);
  });

  it('an author\'s completion schedules them too, once', async () => {
    const course = await f.publishedCourse({ retain: true, retain_intervals: [1] });
    const user = await f.newLearner();
    const [enrollment] = (await f.enroll(course.id, [{ user_id: user.userId }])).enrollments;
    expect((await f.admin.patch(`/api/author/enrollments/${enrollment.id}`, { enrollments: [{ state: 'complete' }] })).status).toBe(200);
    const [row] = await eventually(async () => {
      const rows = await queryDatabase<{ id: number }>(f.t.db.url, 'SELECT id FROM catalog.retain_quizzes WHERE enrollment_id = $1', [enrollment.id]);
      return rows.length > 0 ? rows : undefined;
    });
    const api = f.admin.as(user.token);
    expect((await api.get(`${QUIZZES}/${row.id}`)).body.quizzes[0]).toMatchObject({ enrollment_id: enrollment.id, state: 'scheduled' });
    // The learner's own complete call afterwards answers the same quiz, not a second one.
    expect((await api.post(`/api/learner/courses/${enrollment.id}/complete`)).body.linked.quizzes.map((q: { id: number }) => q.id)).toEqual([row.id]);
  });

  it('PATCH and PUT change started_at only: any other field, a bad date or no quiz object is a 400 that changes nothing', async () => {
    const { api, quizzes, completedAt } = await completedLearner();
    const path = `${QUIZZES}/${quizzes[0].id}`;
    // Due a day before the completion, so a start may lie anywhere in that day.
    await queryDatabase(f.t.db.url, `UPDATE catalog.retain_quizzes SET due_at = due_at - interval '1 day' WHERE id = $1`, [quizzes[0].id]);
    const [earlier, later] = [new Date(Date.parse(completedAt) - 12 * 3_600_000).toISOString(), new Date(Date.parse(completedAt) - 3_600_000).toISOString()];
    const patched = await api.patch(path, { quiz: { started_at: earlier } });
    expect(patched.status).toBe(200);
    expect(patched.body.quizzes[0]).toMatchObject({ id: quizzes[0].id, started_at: earlier, state: 'current' });
    const put = await api.put(path, { quiz: { started_at: later } });
    expect([put.status, put.body.quizzes[0].started_at]).toEqual([200, later]);
    for (const body of [
      { quiz: { started_at: '2030-01-01T00:00:00Z', score: 100 } },
      { quiz: { state: 'complete' } },
      { quiz: { ended_at: '2030-01-01T00:00:00Z' } },
      { quiz: { started_at: 'soon' } },
      { quiz: {} },
      { quiz: { started_at: null } },
      { started_at: '2030-01-01T00:00:00Z' },
      {},
    ]) {
      const res = await api.patch(path, body);
      expect([JSON.stringify(body), res.status, res.headers.get('content-type')]).toEqual([JSON.stringify(body), 400, expect.stringMatching(/problem\+json/)]);
    }
    expect((await api.get(path)).body.quizzes[0]).toMatchObject({ started_at: later, score: null, ended_at: null, state: 'current' });
  });

  it('refuses a start in the future, before the quiz was due, or on a quiz not due yet (400, nothing changes); a clock a little ahead is taken as now', async () => {
    const { api, quizzes, completedAt } = await completedLearner();
    const [current, scheduled] = quizzes;
    const path = `${QUIZZES}/${current.id}`;
    for (const startedAt of [new Date(Date.now() + DAY).toISOString(), '2030-01-01T00:00:00Z', new Date(Date.parse(completedAt) - DAY).toISOString()]) {
      const res = await api.patch(path, { quiz: { started_at: startedAt } });
      expect([startedAt, res.status, res.body.code, res.body.errors?.[0]?.field]).toEqual([startedAt, 400, 'RETAIN_QUIZ_START_INVALID', 'quiz.started_at']);
    }
    const early = await api.put(`${QUIZZES}/${scheduled.id}`, { quiz: { started_at: new Date().toISOString() } });
    expect([early.status, early.body.code]).toEqual([400, 'RETAIN_QUIZ_NOT_DUE']);
    expect((await api.get(`${QUIZZES}/${scheduled.id}`)).body.quizzes[0]).toMatchObject({ state: 'scheduled', started_at: null });
    expect((await api.get(path)).body.quizzes[0].started_at).toBeNull();

    const sent = Date.now();
    const ahead = await api.patch(path, { quiz: { started_at: new Date(sent + 30_000).toISOString() } });
    expect(ahead.status).toBe(200);
    expect(Date.parse(ahead.body.quizzes[0].started_at)).toBeLessThan(sent + 30_000);
    const done = (await api.post(`${QUIZZES}/${current.id}/complete`)).body.quizzes[0];
    expect(Date.parse(done.ended_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
  });

  it('POST complete completes a due quiz once (state, ended_at, score, progress 1); before it is due it is a 400; then it no longer changes', async () => {
    const { api, quizzes } = await completedLearner();
    const [current, scheduled] = quizzes;
    const before = Date.now();
    const done = await api.post(`${QUIZZES}/${current.id}/complete`, { quiz: { score: 85 } });
    expect(done.status).toBe(200);
    const quiz = done.body.quizzes[0];
    expect(quiz).toMatchObject({ id: current.id, state: 'complete', score: 85, progress: 1, started_at: expect.any(String), ended_at: expect.any(String) });
    expect(Date.parse(quiz.ended_at)).toBeGreaterThanOrEqual(before - 1000);
    const again = await api.post(`${QUIZZES}/${current.id}/complete`, { quiz: { score: 10 } });
    expect([again.status, again.body.quizzes[0]]).toEqual([200, quiz]);
    const late = await api.patch(`${QUIZZES}/${current.id}`, { quiz: { started_at: '2030-01-01T00:00:00Z' } });
    expect([late.status, late.body.code]).toEqual([400, 'RETAIN_QUIZ_COMPLETE']);

    const early = await api.post(`${QUIZZES}/${scheduled.id}/complete`);
    expect([early.status, early.body.code]).toEqual([400, 'RETAIN_QUIZ_NOT_DUE']);
    expect((await api.get(`${QUIZZES}/${scheduled.id}`)).body.quizzes[0].state).toBe('scheduled');
    for (const body of [{ quiz: { score: 101 } }, { quiz: { score: 'high' } }, { score: 5 }]) expect((await api.post(`${QUIZZES}/${scheduled.id}/complete`, body)).status).toBe(400);
  });

  it("another learner's quiz, an unknown id and another account's are a 404 to every method, and nothing changes", async () => {
    const { quizzes } = await completedLearner();
    const other = f.admin.as((await f.newLearner()).token);
    const id = quizzes[0].id;
    for (const [client, label] of [[other, 'other learner'], [f.stranger, 'other account'], [f.admin, 'administrator']] as const) {
      for (const res of [
        await client.get(`${QUIZZES}/${id}`),
        await client.patch(`${QUIZZES}/${id}`, { quiz: { started_at: '2030-01-01T00:00:00Z' } }),
        await client.put(`${QUIZZES}/${id}`, { quiz: { started_at: '2030-01-01T00:00:00Z' } }),
        await client.post(`${QUIZZES}/${id}/complete`, { quiz: { score: 1 } }),
      ]) {
        expect([label, res.status, res.body.code]).toEqual([label, 404, 'RETAIN_QUIZ_NOT_FOUND']);
      }
    }
    expect((await other.get(`${QUIZZES}/999999`)).status).toBe(404);
    expect((await f.admin.as(undefined).get(`${QUIZZES}/${id}`)).status).toBe(401);
    const [row] = await queryDatabase<{ started_at: Date | null; ended_at: Date | null }>(f.t.db.url, 'SELECT started_at, ended_at FROM catalog.retain_quizzes WHERE id = $1', [id]);
    expect(row).toEqual({ started_at: null, ended_at: null });
  });
});
