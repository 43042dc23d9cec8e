import { queryDatabase } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

const reportsOf = (courseId: string) => `${COURSES}/${courseId}/reports`;

describe('course reports, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-course-reports');
  });
  afterAll(async () => {
    await f?.close();
  });

  it("answers the spec's Report records, with zeros for a course nobody is enrolled in and no quiz report without quiz slides", async () => {
    const course = await f.createCourse();
    const res = await f.author.get(reportsOf(course.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      meta: {},
      reports: [
        {
          title: 'Enrollments by state', report_type: 'enrollment_states',
          data: ['assigned', 'active', 'complete', 'overdue', 'removed'].map((state) => ({ state, count: 0 })),
          data_types: { state: 'String', count: 'Integer' },
        },
        {
          title: 'Completion', report_type: 'completion',
          data: [{ enrollments: 0, completed: 0, completion_rate: 0, average_score: null, average_minutes_to_complete: null }],
          data_types: { enrollments: 'Integer', completed: 'Integer', completion_rate: 'Float', average_score: 'Float', average_minutes_to_complete: 'Float' },
        },
      ],
    });
  });

  it('computes counts by state, completion rate, average score and time to complete from the real enrollments', async () => {
    const course = await f.publishedCourse({ default_days_until_due: 0 });
    const learners = await Promise.all(Array.from({ length: 5 }, () => f.newLearner()));
    const enrolled = await f.enroll(course.id, learners.map((l) => ({ user_id: l.userId })));
    const ids: number[] = enrolled.enrollments.map((e: { id: number }) => e.id);
    const change = async (id: number, body: Record<string, unknown>) => {
      const res = await f.admin.patch(`${ENROLLMENTS}/${id}`, { enrollments: [body] });
      if (res.status !== 200) throw new Error(`changing enrollment ${id} answered ${res.status}: ${res.text}`);
    };
    await change(ids[0], { state: 'active' });
    await change(ids[0], { completed_at: new Date(Date.now() - 60_000).toISOString(), score: 80 });
    await change(ids[1], { state: 'active' });
    await change(ids[1], { completed_at: new Date(Date.now() - 60_000).toISOString(), score: 95 });
    await change(ids[2], { state: 'active', end_at: new Date(Date.now() - 3_600_000).toISOString() });
    expect((await f.admin.delete(`${ENROLLMENTS}/${ids[4]}`)).status).toBe(204);
    // Known durations: 30 and 90 minutes from start to completion.
    await queryDatabase(f.t.db.url, "UPDATE catalog.enrollments SET started_at = completed_at - make_interval(mins => $2) WHERE id = $1", [ids[0], 30]);
    await queryDatabase(f.t.db.url, "UPDATE catalog.enrollments SET started_at = completed_at - make_interval(mins => $2) WHERE id = $1", [ids[1], 90]);

    const res = await f.otherAuthor.get(reportsOf(course.id));
    expect(res.status).toBe(200);
    const [states, completion] = res.body.reports;
    expect(states.data).toEqual([
      { state: 'assigned', count: 1 }, { state: 'active', count: 1 }, { state: 'complete', count: 2 }, { state: 'overdue', count: 1 }, { state: 'removed', count: 1 },
    ]);
    expect(completion.data).toEqual([{ enrollments: 4, completed: 2, completion_rate: 0.5, average_score: 87.5, average_minutes_to_complete: 60 }]);
    // The course's own counts agree.
    expect((await f.author.get(`${COURSES}/${course.id}`)).body.course_templates[0].enrollment_counts).toMatchObject({ all: 4, finished: 2, overdue: 1 });
  });

  it('adds per-slide quiz results when the course has quiz slides, in slide order', async () => {
    const course = await f.createCourse({}, f.author);
    const slides = `${COURSES}/${course.id}/slides`;
    const add = async (attributes: Record<string, unknown>) => (await f.author.post(slides, { slides: [{ draft_attributes: { allow_comments: null, ...attributes } }] })).body.slides[0];
    await add({ title: 'Intro', type: 'text' });
    const q1 = await add({ title: 'Pick one', type: 'quiz' });
    const q2 = await add({ title: 'True or false', type: 'question' });
    const quiz = (await f.author.get(reportsOf(course.id))).body.reports[2];
    expect(quiz).toEqual({
      title: 'Quiz results by slide', report_type: 'quiz_results',
      data: [
        { slide_id: q1.id, position: 2, title: 'Pick one', responses: 0, correct: 0, percent_correct: null },
        { slide_id: q2.id, position: 3, title: 'True or false', responses: 0, correct: 0, percent_correct: null },
      ],
      data_types: { slide_id: 'Integer', position: 'Integer', title: 'String', responses: 'Integer', correct: 'Integer', percent_correct: 'Float' },
    });
  });

  it("counts a published quiz slide deleted in the draft until a publish drops it, as the QuizReport and the learner's score do", async () => {
    const course = await f.createCourse({}, f.author);
    const slides = `${COURSES}/${course.id}/slides`;
    const question = { prompt: 'Which?', choices: [{ id: 'a', text: 'A', correct: true }, { id: 'b', text: 'B', correct: false }] };
    const add = async (title: string) => (await f.author.post(slides, { slides: [{ draft_attributes: { allow_comments: null, title, type: 'quiz', question } }] })).body.slides[0];
    const [kept, dropped] = [await add('Kept'), await add('Dropped')];
    expect((await f.author.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    const learner = await f.newLearner();
    const [enrollment] = (await f.enroll(course.id, [{ user_id: learner.userId }])).enrollments;
    const api = f.admin.as(learner.token);
    for (const [slide, choice] of [[kept, 'a'], [dropped, 'b']]) {
      expect((await api.post(`/api/learner/courses/${course.id}/slides/${slide.id}/responses`, { response: { choice_ids: [choice] } })).status).toBe(201);
    }
    expect((await f.author.delete(`${slides}/${dropped.id}`)).status).toBe(204);

    const figures = async () => ({
      report: (await f.author.get(reportsOf(course.id))).body.reports[2]?.data.map((r: Record<string, unknown>) => [r.slide_id, r.position, r.title, r.responses, r.correct]),
      quizReport: (await f.admin.get(`/api/admin/reports/QuizReport?course_template_id=${course.id}`)).body.reports[0].data.map((r: Record<string, unknown>) => [r.quiz, r.completed]),
      score: (await api.get(`/api/learner/courses/${enrollment.id}`)).body.courses[0].score,
    });
    // Still published: counted everywhere, with no draft position (it has none left).
    expect(await figures()).toEqual({
      report: [[kept.id, 1, 'Kept', 1, 1], [dropped.id, null, 'Dropped', 1, 0]],
      quizReport: [['Quiz slide 1: Kept', 1], ['Quiz slide 2: Dropped', 1]],
      score: 50,
    });
    expect((await f.author.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    expect((await figures()).report).toEqual([[kept.id, 1, 'Kept', 1, 1]]);
    expect((await figures()).quizReport).toEqual([['Quiz slide 1: Kept', 1]]);
  });

  it('is a 404 for another account and an unknown course, 400 for a malformed id, 403 for learners', async () => {
    const course = await f.createCourse();
    expect((await f.stranger.get(reportsOf(course.id))).status).toBe(404);
    expect((await f.author.get(reportsOf('999999'))).status).toBe(404);
    expect((await f.author.get(reportsOf('abc'))).status).toBe(400);
    expect((await f.learner.get(reportsOf(course.id))).status).toBe(403);
    // An archived course still has its history.
    expect((await f.admin.delete(`${COURSES}/${course.id}`)).status).toBe(204);
    expect((await f.author.get(reportsOf(course.id))).status).toBe(200);
  });
});
