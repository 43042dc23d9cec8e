import { type ApiClient, eventually, parseCsv, queryDatabase, type TestUser } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

const REPORTS = '/api/admin/reports';
const QUIZZES = '/api/learner/retain_quizzes';

type Row = Record<string, string | number | null>;

/** The rows of a report download (a CSV), fetched through its signed URL, as the report's data would print them. */
async function downloadedRows(f: EnrollmentFixture, api: ApiClient, download_type: string, info: Record<string, unknown>): Promise<string[][]> {
  const created = await api.post('/api/downloads', { download: { download_type, info } });
  expect(created.status).toBe(201);
  const done = await eventually(async () => {
    const res = await api.get(`/api/downloads/${created.body.download.id}`);
    return res.body.download.state === 'done' ? res.body.download : undefined;
  }, 30_000, 100);
  const redirect = await api.get(done.url);
  expect(redirect.status).toBe(302);
  const file = await fetch(`${f.t.system.url}${redirect.headers.get('location')}`);
  expect(file.status).toBe(200);
  return parseCsv(await file.text());
}

/** A report's data as CSV text cells: the header from data_types, null as empty. */
const asCsv = (report: { data: Row[]; data_types: Record<string, string> }): string[][] => {
  const columns = Object.keys(report.data_types);
  return [columns, ...report.data.map((row) => columns.map((c) => (row[c] === null ? '' : String(row[c]))))];
};

/** Admin reports through the gateway: QuizReport from catalog's quiz rows, SignInReport from identity's recorded token use. */
describe('admin reports', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    // Every request asks identity for its principal (no cache), so the recorder's own limit is what keeps sign-ins few.
    f = await startEnrollmentFixture('e2e-admin-reports', { AUTH_CACHE_TTL_MS: '0' });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  /** A learner who completed the retain course; the quiz due at once (interval 0). */
  async function learnerWithQuiz(courseId: string | number): Promise<{ api: ApiClient; quizId: number }> {
    const user = await f.newLearner();
    const api = f.admin.as(user.token);
    const [enrollment] = (await f.enroll(courseId, [{ user_id: user.userId }])).enrollments;
    const res = await api.post(`/api/learner/courses/${enrollment.id}/complete`);
    expect(res.status).toBe(200);
    const quiz = (res.body.linked.quizzes as { id: number; due_at: string; state: string }[]).find((q) => q.state === 'current')!;
    return { api, quizId: quiz.id };
  }

  it('answers 401 without a token, 403 to non-administrators and 404 for any other report', async () => {
    for (const id of ['QuizReport', 'SignInReport']) {
      expect((await f.admin.as(undefined).get(`${REPORTS}/${id}`)).status).toBe(401);
      for (const api of [f.author, f.learner]) expect((await api.get(`${REPORTS}/${id}`)).status).toBe(403);
    }
    for (const id of ['Unknown', 'quizreport', 'CourseReport', '1']) {
      const res = await f.admin.get(`${REPORTS}/${id}`);
      expect([id, res.status, res.body.code]).toEqual([id, 404, 'REPORT_NOT_FOUND']);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect((await f.admin.get(`${REPORTS}/QuizReport?course_template_id=abc`)).status).toBe(400);
    expect((await f.admin.get(`${REPORTS}/SignInReport?start_date=2026-13-01`)).status).toBe(400);
    expect((await f.admin.get(`${REPORTS}/SignInReport?start_date=0000-12-31`)).status).toBe(400);
    expect((await f.admin.get(`${REPORTS}/SignInReport?start_date=2026-03-02&end_date=2026-03-01`)).status).toBe(400);
  });

  it('QuizReport counts retain quiz attempts, completions, average score and pass rate per quiz of a course, from real quiz rows', async () => {
    const graded = await f.publishedCourse({ title: 'Graded retain', retain: true, retain_intervals: [0, 3], passing_threshold: 70 });
    const [a, b, c] = [await learnerWithQuiz(graded.id), await learnerWithQuiz(graded.id), await learnerWithQuiz(graded.id)];
    expect((await a.api.post(`${QUIZZES}/${a.quizId}/complete`, { quiz: { score: 85 } })).status).toBe(200);
    expect((await b.api.post(`${QUIZZES}/${b.quizId}/complete`, { quiz: { score: 50 } })).status).toBe(200);
    expect((await c.api.patch(`${QUIZZES}/${c.quizId}`, { quiz: { started_at: new Date().toISOString() } })).status).toBe(200);
    const ungraded = await f.publishedCourse({ title: 'Ungraded retain', retain: true, retain_intervals: [0] });
    const d = await learnerWithQuiz(ungraded.id);
    expect((await d.api.post(`${QUIZZES}/${d.quizId}/complete`, { quiz: { score: 90 } })).status).toBe(200);

    const gradedRows = [
      { course_template_id: Number(graded.id), course_title: 'Graded retain', quiz: 'Retain quiz, day 0', quiz_type: 'retain_quiz', interval_days: 0, attempts: 3, completed: 2, average_score: 67.5, pass_rate: 0.5 },
      { course_template_id: Number(graded.id), course_title: 'Graded retain', quiz: 'Retain quiz, day 3', quiz_type: 'retain_quiz', interval_days: 3, attempts: 0, completed: 0, average_score: null, pass_rate: null },
    ];
    const all = await f.admin.get(`${REPORTS}/QuizReport`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      meta: {},
      reports: [{
        title: 'Quiz report',
        report_type: 'quiz_report',
        data: [
          ...gradedRows,
          // No passing threshold: nothing to pass.
          { course_template_id: Number(ungraded.id), course_title: 'Ungraded retain', quiz: 'Retain quiz, day 0', quiz_type: 'retain_quiz', interval_days: 0, attempts: 1, completed: 1, average_score: 90, pass_rate: null },
        ],
        data_types: { course_template_id: 'Integer', course_title: 'String', quiz: 'String', quiz_type: 'String', interval_days: 'Integer', attempts: 'Integer', completed: 'Integer', average_score: 'Float', pass_rate: 'Float' },
      }],
    });
    const one = await f.admin.get(`${REPORTS}/QuizReport?course_template_id=${graded.id}`);
    expect(one.body.reports[0].data).toEqual(gradedRows);

    // Another account sees none of it, and cannot name the course.
    expect((await f.stranger.get(`${REPORTS}/QuizReport`)).body.reports[0].data).toEqual([]);
    expect((await f.stranger.get(`${REPORTS}/QuizReport?course_template_id=${graded.id}`)).status).toBe(404);
    expect((await f.admin.get(`${REPORTS}/QuizReport?course_template_id=99999999`)).status).toBe(404);

    // The download of the report holds the same rows.
    expect(await downloadedRows(f, f.admin, 'quiz_report', {})).toEqual(asCsv(all.body.reports[0]));
    expect(await downloadedRows(f, f.admin, 'quiz_report', { course_template_id: Number(graded.id) })).toEqual(asCsv(one.body.reports[0]));

    // The course as its learners were scored against it: a draft title and threshold show with their publish.
    expect((await f.admin.patch(`${COURSES}/${graded.id}`, { course_template: { title: 'Graded retain, renamed', passing_threshold: 90 } })).status).toBe(200);
    expect((await f.admin.get(`${REPORTS}/QuizReport?course_template_id=${graded.id}`)).body.reports[0].data).toEqual(gradedRows);
    expect((await f.admin.post(`${COURSES}/${graded.id}/publish`, {})).status).toBe(200);
    expect((await f.admin.get(`${REPORTS}/QuizReport?course_template_id=${graded.id}`)).body.reports[0].data).toEqual([
      { ...gradedRows[0], course_title: 'Graded retain, renamed', pass_rate: 0 },
      { ...gradedRows[1], course_title: 'Graded retain, renamed' },
    ]);
  }, 90_000);

  it('SignInReport shows each user\'s last sign-in and sign-ins in the period, recorded from token use at most once per token every few minutes', async () => {
    const active: TestUser = await f.newLearner();
    const idle: TestUser = await f.newLearner();
    const api = f.admin.as(active.token);
    for (let i = 0; i < 5; i += 1) expect((await api.get('/api/learner/courses')).status).toBe(200);
    const rowsOf = (userId: number) => queryDatabase<{ signed_in_at: Date }>(f.t.db.url, 'SELECT signed_in_at FROM identity.sign_ins WHERE user_id = $1', [userId]);
    await eventually(async () => ((await rowsOf(active.userId)).length > 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Five requests, each a principal look-up (no cache here), one sign-in.
    expect(await rowsOf(active.userId)).toHaveLength(1);
    // A sign-in long ago, outside the default period (the last 30 days).
    await queryDatabase(f.t.db.url, "INSERT INTO identity.sign_ins (account_id, user_id, token_id, signed_in_at, last_seen_at) VALUES ($1, $2, 0, '2020-01-05T10:00:00Z', '2020-01-05T11:00:00Z')", [f.cast.accountId, active.userId]);

    const res = await f.admin.get(`${REPORTS}/SignInReport`);
    expect(res.status).toBe(200);
    const [report] = res.body.reports;
    expect(report).toMatchObject({ title: 'Sign-in report', report_type: 'sign_in_report', data_types: { user_id: 'Integer', uid: 'String', name: 'String', email: 'String', last_sign_in_at: 'DateTime', last_seen_at: 'DateTime', sign_ins: 'Integer' } });
    const byUser = new Map((report.data as Row[]).map((row) => [row.user_id, row]));
    const [recent] = await rowsOf(active.userId).then((rows) => rows.filter((r) => r.signed_in_at.getUTCFullYear() > 2020));
    expect(byUser.get(active.userId)).toEqual({ user_id: active.userId, uid: active.uid, name: `${active.uid} Test`, email: `${active.uid}@example.test`, last_sign_in_at: recent.signed_in_at.toISOString(), last_seen_at: expect.any(String), sign_ins: 1 });
    expect(byUser.get(idle.userId)).toMatchObject({ uid: idle.uid, last_sign_in_at: null, last_seen_at: null, sign_ins: 0 });
    // The administrator's own calls are sign-ins too.
    expect((report.data as Row[]).filter((row) => (row.sign_ins as number) > 0).length).toBeGreaterThanOrEqual(2);
    expect([...byUser.values()].some((row) => row.user_id === f.cast.stranger.userId)).toBe(false);

    const january = await f.admin.get(`${REPORTS}/SignInReport?start_date=2020-01-01&end_date=2020-01-31`);
    const old = (january.body.reports[0].data as Row[]).find((row) => row.user_id === active.userId);
    expect(old).toMatchObject({ sign_ins: 1, last_sign_in_at: recent.signed_in_at.toISOString() });
    expect((january.body.reports[0].data as Row[]).filter((row) => row.user_id !== active.userId).every((row) => row.sign_ins === 0)).toBe(true);

    // Another account's report has only its own users.
    const theirs = (await f.stranger.get(`${REPORTS}/SignInReport`)).body.reports[0].data as Row[];
    expect(theirs.map((row) => row.user_id)).toEqual([f.cast.stranger.userId]);

    // The download of the report holds the same rows.
    expect(await downloadedRows(f, f.admin, 'sign_in_report', { start_date: '2020-01-01', end_date: '2020-01-31' })).toEqual(asCsv(january.body.reports[0]));
  }, 90_000);
});
