import { type ApiClient, eventually, holdingLock, parseCsv, queryDatabase, undocumented } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON

const CHOICES = [
  { id: 'red', text: 'Red', correct: false },
  { id: 'blue', text: 'Blue', correct: true },
  { id: 'green', text: 'Green', correct: false },
];
const QUESTION = { prompt: 'What colour is the sky?', choices: CHOICES };
const MULTIPLE = {
  prompt: 'Which are primes?',
  multiple: true,
  choices: [{ id: 'p2', text: '2', correct: true }, { id: 'p4', text: '4', correct: false }, { id: 'p7', text: '7', correct: true }],
};

/** Quiz slides, learners' answers to them and the reports built from those answers (issue 8; docs/catalog.md "Quiz slides"). */
describe('quiz slides, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-quiz-slides');
  });
  afterAll(async () => {
    await f?.close();
  });

  const slidesOf = (courseId: string | number) => `${COURSES}/${courseId}/slides`;
  const answerPath = (courseId: string | number, slideId: number) => `/api/learner/courses/${courseId}/slides/${slideId}/responses`;
  const storedAnswers = async (slideId: number) => Number((await queryDatabase<{ n: string }>(f.t.db.url, 'SELECT count(*) AS n FROM catalog.slide_responses WHERE slide_id = $1', [slideId]))[0].n);

  async function addSlide(courseId: string | number, attributes: Json): Promise<Json> {
    const res = await f.author.post(slidesOf(courseId), { slides: [{ draft_attributes: { allow_comments: null, ...attributes } }] });
    if (res.status !== 201) throw new Error(`adding a slide answered ${res.status}: ${res.text}`);
    return res.body.slides[0];
  }

  async function publish(courseId: string | number): Promise<void> {
    const res = await f.author.post(`${COURSES}/${courseId}/publish`, {});
    if (res.status !== 200) throw new Error(`publishing answered ${res.status}: ${res.text}`);
  }

  /** The author's published course: a content slide, a single-choice quiz slide and a multiple-choice one; learners enrolled. */
  async function quizCourse(fields: Json = {}, learners = 2) {
    const course = await f.createCourse({ title: 'Sky quiz', max_quiz_attempts: 2, show_correct_response: true, ...fields }, f.author);
    const intro = await addSlide(course.id, { title: 'Intro', type: 'content' });
    const quiz = await addSlide(course.id, { title: 'Sky colour', type: 'quiz', question: QUESTION });
    const primes = await addSlide(course.id, { title: 'Primes', type: 'question', question: MULTIPLE });
    await publish(course.id);
    const users = await Promise.all(Array.from({ length: learners }, () => f.newLearner()));
    const made: Json[] = users.length > 0 ? (await f.enroll(course.id, users.map((u) => ({ user_id: u.userId })))).enrollments : [];
    const enrolled = users.map((u) => made.find((e) => e.links.learner.id === u.userId)!);
    const clients: ApiClient[] = users.map((u) => f.admin.as(u.token));
    return { course, intro: intro.id as number, quiz: quiz.id as number, primes: primes.id as number, users, clients, enrollments: enrolled as Json[] };
  }

  const answer = (api: ApiClient, courseId: string | number, slideId: number, choiceIds: string[], headers: Record<string, string> = {}) =>
    api.request('POST', answerPath(courseId, slideId), { response: { choice_ids: choiceIds } }, headers);

  const quizResults = async (courseId: string | number) => {
    const res = await f.author.get(`${COURSES}/${courseId}/reports`);
    expect(res.status).toBe(200);
    return (res.body.reports as Json[]).find((r) => r.report_type === 'quiz_results')!;
  };

  it('authors a quiz slide with a question; bad questions are 400 and change nothing; publishing carries the question over', async () => {
    const course = await f.createCourse({ title: 'Authoring quiz' }, f.author);
    const created = await addSlide(course.id, { title: 'Sky colour', type: 'quiz', question: QUESTION });
    expect(created.draft_attributes).toEqual({ title: 'Sky colour', type: 'quiz', allow_comments: null, question: QUESTION });
    expect(created.published_attributes).toBeNull();

    const before = (await f.author.get(slidesOf(course.id))).body;
    const bad: [string, unknown, string?][] = [
      ['one choice', { prompt: 'x', choices: [CHOICES[1]] }],
      ['no correct choice', { prompt: 'x', choices: [CHOICES[0], CHOICES[2]] }],
      ['two correct without multiple', { prompt: 'x', choices: [CHOICES[1], { ...CHOICES[0], correct: true }] }],
      ['repeated choice ids', { prompt: 'x', choices: [CHOICES[1], { ...CHOICES[0], id: 'blue' }] }],
      ['a blank prompt', { prompt: ' ', choices: CHOICES }],
      ['an unknown field', { ...QUESTION, shuffle: true }],
      ['a choice without text', { prompt: 'x', choices: [{ id: 'a', correct: true }, CHOICES[0]] }],
      ['a question on a content slide', QUESTION, 'content'],
    ];
    for (const [label, question, type] of bad) {
      const attributes = { title: 'Bad', type: type ?? 'quiz', allow_comments: null, question };
      const posted = await f.author.post(slidesOf(course.id), { slides: [{ draft_attributes: attributes }] });
      expect([label, posted.status, posted.headers.get('content-type')]).toEqual([label, 400, expect.stringMatching(/^application\/problem\+json/)]);
      expect([label, posted.body.errors.some((e: Json) => String(e.field).includes('question'))]).toEqual([label, true]);
      const patched = await f.author.patch(`${slidesOf(course.id)}/${created.id}`, { slide: { draft_attributes: attributes } });
      expect([label, patched.status]).toEqual([label, 400]);
    }
    expect((await f.author.get(slidesOf(course.id))).body).toEqual(before);

    // Several correct choices with multiple; a slide without a question, and the other slide fields, work as before.
    expect((await addSlide(course.id, { type: 'question', question: MULTIPLE })).draft_attributes.question).toEqual(MULTIPLE);
    expect((await addSlide(course.id, { title: 'Plain quiz', type: 'quiz' })).draft_attributes).toEqual({ title: 'Plain quiz', type: 'quiz', allow_comments: null });

    await publish(course.id);
    const shown = (await f.author.get(`${slidesOf(course.id)}/${created.id}`)).body.slides[0];
    expect(shown.published_attributes).toEqual(shown.draft_attributes);
    expect(shown.published_attributes.question).toEqual(QUESTION);
    // show_correct_response is a course setting authors write.
    const updated = await f.author.patch(`${COURSES}/${course.id}`, { course_template: { show_correct_response: true } });
    expect([updated.status, updated.body.course_templates[0].show_correct_response]).toEqual([200, true]);
  });

  it('two learners answer (one right, one wrong): the course report shows responses 2, correct 1, percent_correct 50; the QuizReport shows the slide', async () => {
    const s = await quizCourse();
    const [ann, bob] = s.clients;
    const right = await answer(ann, s.course.id, s.quiz, ['blue']);
    expect(right.status).toBe(201);
    expect(right.body).toEqual({
      response: {
        id: expect.any(Number), course_id: Number(s.course.id), slide_id: s.quiz, enrollment_id: s.enrollments[0].id, choice_ids: ['blue'],
        correct: true, attempt: 1, attempts_remaining: 1, correct_choice_ids: ['blue'], created_at: expect.any(String),
      },
    });
    const wrong = await answer(bob, s.course.id, s.quiz, ['red']);
    expect(wrong.status).toBe(201);
    // A wrong answer with an attempt left keeps the correct choices hidden.
    expect(wrong.body.response).toMatchObject({ correct: false, attempt: 1, attempts_remaining: 1 });
    expect(wrong.body.response).not.toHaveProperty('correct_choice_ids');

    const report = await quizResults(s.course.id);
    expect(report).toEqual({
      title: 'Quiz results by slide', report_type: 'quiz_results',
      data: [
        { slide_id: s.quiz, position: 2, title: 'Sky colour', responses: 2, correct: 1, percent_correct: 50 },
        { slide_id: s.primes, position: 3, title: 'Primes', responses: 0, correct: 0, percent_correct: null },
      ],
      data_types: { slide_id: 'Integer', position: 'Integer', title: 'String', responses: 'Integer', correct: 'Integer', percent_correct: 'Float' },
    });

    const quizReport = await f.admin.get(`/api/admin/reports/QuizReport?course_template_id=${s.course.id}`);
    expect(quizReport.status).toBe(200);
    expect(quizReport.body.reports[0].data).toEqual([
      { course_template_id: Number(s.course.id), course_title: 'Sky quiz', quiz: 'Quiz slide 2: Sky colour', quiz_type: 'quiz_slide', interval_days: null, attempts: 2, completed: 2, average_score: 50, pass_rate: 0.5 },
      { course_template_id: Number(s.course.id), course_title: 'Sky quiz', quiz: 'Quiz slide 3: Primes', quiz_type: 'quiz_slide', interval_days: null, attempts: 0, completed: 0, average_score: null, pass_rate: null },
    ]);
    // The quiz_report download (jobs worker) holds the same rows.
    const created = await f.admin.post('/api/downloads', { download: { download_type: 'quiz_report', info: { course_template_id: Number(s.course.id) } } });
    expect(created.status).toBe(201);
    const done = await eventually(async () => {
      const res = await f.admin.get(`/api/downloads/${created.body.download.id}`);
      return res.body.download.state === 'done' ? res.body.download : undefined;
    }, 30_000, 100);
    const redirect = await f.admin.get(done.url);
    const csv = parseCsv(await (await fetch(`${f.t.system.url}${redirect.headers.get('location')}`)).text());
    const columns = Object.keys(quizReport.body.reports[0].data_types);
    expect(csv).toEqual([columns, ...quizReport.body.reports[0].data.map((row: Json) => columns.map((c) => (row[c] === null ? '' : String(row[c]))))]);
    // Another account's administrator sees none of it.
    expect((await f.stranger.get('/api/admin/reports/QuizReport')).body.reports[0].data.some((r: Json) => r.course_template_id === Number(s.course.id))).toBe(false);
  });

  it("bounds attempts by max_quiz_attempts (409), counts each learner's latest answer, and reveals the correct choices once the slide is done", async () => {
    const s = await quizCourse({}, 3);
    const [ann, bob, cat] = s.clients;
    expect((await answer(ann, s.course.id, s.quiz, ['blue'])).status).toBe(201);
    expect((await answer(bob, s.course.id, s.quiz, ['red'])).body.response.correct).toBe(false);
    // Bob's last attempt: wrong again, no attempt left, so the correct choices are shown.
    const last = await answer(bob, s.course.id, s.quiz, ['green']);
    expect(last.body.response).toMatchObject({ correct: false, attempt: 2, attempts_remaining: 0, correct_choice_ids: ['blue'] });
    const over = await answer(bob, s.course.id, s.quiz, ['blue']);
    expect([over.status, over.body.code, over.headers.get('content-type')]).toEqual([409, 'QUIZ_ATTEMPTS_EXHAUSTED', expect.stringMatching(/^application\/problem\+json/)]);
    // Cat is wrong first, right second: the latest answer counts.
    expect((await answer(cat, s.course.id, s.quiz, ['red'])).body.response.correct).toBe(false);
    expect((await answer(cat, s.course.id, s.quiz, ['blue'])).body.response).toMatchObject({ correct: true, attempt: 2, attempts_remaining: 0 });
    expect(await storedAnswers(s.quiz)).toBe(5);
    expect((await quizResults(s.course.id)).data[0]).toEqual({ slide_id: s.quiz, position: 2, title: 'Sky colour', responses: 3, correct: 2, percent_correct: 66.67 });
    const row = (await f.admin.get(`/api/admin/reports/QuizReport?course_template_id=${s.course.id}`)).body.reports[0].data[0];
    expect(row).toMatchObject({ quiz_type: 'quiz_slide', attempts: 5, completed: 3, average_score: 66.67, pass_rate: 0.6667 });

    // Concurrent answers never pass the limit: of 6 at once, 2 are stored.
    const race = await quizCourse({ title: 'Race 2' }, 1);
    const results = await Promise.all(Array.from({ length: 6 }, () => answer(race.clients[0], race.course.id, race.quiz, ['red'])));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    expect(results.filter((r) => r.status === 201).map((r) => r.body.response.attempt).sort()).toEqual([1, 2]);
    expect(await storedAnswers(race.quiz)).toBe(2);

    // The attempt limit is the published course's: raising it in the drafts changes nothing until published.
    expect((await f.author.patch(`${COURSES}/${race.course.id}`, { course_template: { max_quiz_attempts: 3 } })).status).toBe(200);
    expect((await answer(race.clients[0], race.course.id, race.quiz, ['blue'])).status).toBe(409);
    await publish(race.course.id);
    expect((await answer(race.clients[0], race.course.id, race.quiz, ['blue'])).body.response).toMatchObject({ correct: true, attempt: 3, attempts_remaining: 0 });
  }, 60_000);

  it('scores multiple-choice questions on the exact set; without show_correct_response or a limit, nothing is revealed and attempts_remaining is null', async () => {
    const s = await quizCourse({ show_correct_response: false, max_quiz_attempts: null }, 1);
    const [ann] = s.clients;
    expect((await answer(ann, s.course.id, s.primes, ['p2'])).body.response).toMatchObject({ correct: false, attempts_remaining: null });
    expect((await answer(ann, s.course.id, s.primes, ['p2', 'p4', 'p7'])).body.response.correct).toBe(false);
    const right = await answer(ann, s.course.id, s.primes, ['p7', 'p2']);
    expect(right.body.response).toMatchObject({ correct: true, attempt: 3, attempts_remaining: null, choice_ids: ['p7', 'p2'] });
    expect(right.body.response).not.toHaveProperty('correct_choice_ids');
    // A single-choice question takes exactly one choice; unknown or repeated choices are 400; nothing is stored.
    for (const [choices, code] of [[['blue', 'red'], 'ONE_CHOICE_ONLY'], [['purple'], 'UNKNOWN_CHOICE'], [['blue', 'blue'], 'VALIDATION_FAILED'], [[], 'VALIDATION_FAILED']] as const) {
      const res = await answer(ann, s.course.id, s.quiz, [...choices]);
      expect([choices, res.status, res.body.code]).toEqual([choices, 400, code]);
    }
    for (const body of [{}, { response: {} }, { choice_ids: ['blue'] }, { response: { choice_ids: ['blue'], correct: true } }, { response: { choice_ids: 'blue' } }]) {
      expect((await ann.post(answerPath(s.course.id, s.quiz), body)).status).toBe(400);
    }
    // A published slide with no question is a 400 too.
    const intro = await answer(ann, s.course.id, s.intro, ['blue']);
    expect([intro.status, intro.body.code]).toEqual([400, 'SLIDE_HAS_NO_QUESTION']);
    expect(await storedAnswers(s.quiz)).toBe(0);
  });

  it('is a 404 for learners not enrolled, another account, authors, unknown, unpublished or other courses\' slides, and removed enrollments; nothing is stored', async () => {
    const s = await quizCourse({}, 2);
    const [ann, bob] = s.clients;
    const outsider = f.admin.as((await f.newLearner()).token);
    const draft = await addSlide(s.course.id, { title: 'Draft quiz', type: 'quiz', question: QUESTION });
    const other = await quizCourse({ title: 'Other course' }, 0);
    const cases: [string, ApiClient, string | number, number][] = [
      ['learner not enrolled', outsider, s.course.id, s.quiz],
      ['another account', f.stranger, s.course.id, s.quiz],
      ['the course author (not enrolled)', f.author, s.course.id, s.quiz],
      ['the administrator (not enrolled)', f.admin, s.course.id, s.quiz],
      ['an unknown slide', ann, s.course.id, 999_999],
      ['an unknown course', ann, 999_999, s.quiz],
      ['a slide never published', ann, s.course.id, draft.id],
      ["another course's slide", ann, s.course.id, other.quiz],
      ["a slide of another course, through that course", ann, other.course.id, other.quiz],
    ];
    for (const [label, api, courseId, slideId] of cases) {
      const res = await answer(api, courseId, slideId, ['blue']);
      expect([label, res.status, res.body.code]).toEqual([label, 404, 'SLIDE_NOT_FOUND']);
    }
    expect((await answer(ann, 'abc', s.quiz, ['blue'])).status).toBe(400);
    // A removed enrollment takes no more answers.
    expect((await f.admin.delete(`${ENROLLMENTS}/${s.enrollments[1].id}`)).status).toBe(204);
    expect((await answer(bob, s.course.id, s.quiz, ['blue'])).status).toBe(404);
    // A course taken away from learners takes none either.
    expect((await f.author.patch(`${COURSES}/${s.course.id}`, { course_template: { is_published: false } })).status).toBe(200);
    expect((await answer(ann, s.course.id, s.quiz, ['blue'])).status).toBe(404);
    expect(await storedAnswers(s.quiz)).toBe(0);
    expect(await storedAnswers(draft.id)).toBe(0);
    expect(await storedAnswers(other.quiz)).toBe(0);
  });

  it("makes the answers a native course enrollment's score: started by the first answer, the latest answers count, recounted at completion, kept once complete", async () => {
    const s = await quizCourse({ max_quiz_attempts: null }, 2);
    const [ann, bob] = s.clients;
    const learnerCourse = async (api: ApiClient, enrollmentId: number) => (await api.get(`/api/learner/courses/${enrollmentId}`)).body.courses[0];
    const authorView = async (enrollmentId: number) => ((await f.admin.get(`${COURSES}/${s.course.id}/enrollments`)).body.enrollments as Json[]).find((e) => e.id === enrollmentId);
    expect(await learnerCourse(ann, s.enrollments[0].id)).toMatchObject({ state: 'assigned', score: null });

    // Two questions: one right of two is 50, and the first answer starts the enrollment.
    expect((await answer(ann, s.course.id, s.quiz, ['blue'])).status).toBe(201);
    // The answer also says the learner reached slide 2 of 3.
    expect(await learnerCourse(ann, s.enrollments[0].id)).toMatchObject({ state: 'active', score: 50, progress: 2, slide_total: 3 });
    expect((await answer(ann, s.course.id, s.primes, ['p2'])).body.response.correct).toBe(false);
    expect((await authorView(s.enrollments[0].id))?.score).toBe(50);
    // The latest answer counts: correcting the second question makes 100, getting the first wrong again 50.
    expect((await answer(ann, s.course.id, s.primes, ['p2', 'p7'])).body.response.correct).toBe(true);
    expect((await learnerCourse(ann, s.enrollments[0].id)).score).toBe(100);
    expect((await answer(ann, s.course.id, s.quiz, ['red'])).body.response.correct).toBe(false);
    // Going back to slide 2 does not take the learner's progress back from slide 3.
    expect(await learnerCourse(ann, s.enrollments[0].id)).toMatchObject({ score: 50, progress: 3 });
    // Another learner's answers are theirs alone.
    expect((await learnerCourse(bob, s.enrollments[1].id)).score).toBeNull();

    // A third question published since: completing recounts against the course as learners now see it (1 of 3).
    await addSlide(s.course.id, { title: 'Sea colour', type: 'quiz', question: QUESTION });
    await publish(s.course.id);
    const done = await ann.post(`/api/learner/courses/${s.enrollments[0].id}/complete`);
    expect([done.status, done.body.courses[0].state, done.body.courses[0].score]).toEqual([200, 'complete', 33]);
    // A completed enrollment keeps the score it completed with; the answer is still recorded.
    expect((await answer(ann, s.course.id, s.quiz, ['blue'])).status).toBe(201);
    expect(await authorView(s.enrollments[0].id)).toMatchObject({ state: 'complete', score: 33 });

    // Completing without a single answer scores 0 in a course with questions; a course without any keeps its score.
    const none = await bob.post(`/api/learner/courses/${s.enrollments[1].id}/complete`);
    expect([none.status, none.body.courses[0].state, none.body.courses[0].score]).toEqual([200, 'complete', 0]);
    const plain = await f.createCourse({ title: 'No questions' }, f.author);
    await addSlide(plain.id, { title: 'Only content', type: 'content' });
    await publish(plain.id);
    const [enrollment] = (await f.enroll(plain.id, [{ user_id: s.users[0].userId }])).enrollments;
    expect((await f.admin.patch(`${ENROLLMENTS}/${enrollment.id}`, { enrollments: [{ score: 80 }] })).status).toBe(200);
    expect((await ann.post(`/api/learner/courses/${enrollment.id}/complete`)).body.courses[0]).toMatchObject({ state: 'complete', score: 80 });
  });

  it("recounts the open enrollments' scores when a publish adds or drops questions, as their next answer would; a completion keeps its score", async () => {
    const s = await quizCourse({ max_quiz_attempts: null }, 3);
    const [ann, bob, cy] = s.clients;
    for (const [api, slide, choices] of [[ann, s.quiz, ['blue']], [ann, s.primes, ['p2', 'p7']], [bob, s.quiz, ['blue']], [cy, s.quiz, ['blue']]] as const) {
      expect((await answer(api, s.course.id, slide, [...choices])).status).toBe(201);
    }
    expect((await cy.post(`/api/learner/courses/${s.enrollments[2].id}/complete`)).body.courses[0].score).toBe(50);
    const scores = async () => Promise.all(s.clients.map(async (api, i) => (await api.get(`/api/learner/courses/${s.enrollments[i].id}`)).body.courses[0].score));
    expect(await scores()).toEqual([100, 50, 50]);

    // A third question, unanswered: 2 of 3 and 1 of 3 now, what the learner course shows and completion would count.
    await addSlide(s.course.id, { title: 'Sea colour', type: 'quiz', question: QUESTION });
    await publish(s.course.id);
    expect(await scores()).toEqual([67, 33, 50]);
    // The multiple-choice question dropped: 1 of 2 each.
    expect((await f.author.delete(`${slidesOf(s.course.id)}/${s.primes}`)).status).toBe(204);
    await publish(s.course.id);
    expect(await scores()).toEqual([50, 50, 50]);
    expect((await f.admin.get(`${COURSES}/${s.course.id}/enrollments`)).body.enrollments.map((e: Json) => [e.id, e.score]).sort()).toEqual(
      s.enrollments.map((e, i) => [e.id, [50, 50, 50][i]]).sort(),
    );
    // A publish that leaves the questions as they were counts nothing again: an author's correction stays.
    expect((await f.admin.patch(`${ENROLLMENTS}/${s.enrollments[1].id}`, { enrollments: [{ score: 90 }] })).status).toBe(200);
    await addSlide(s.course.id, { title: 'Outro', type: 'content' });
    await publish(s.course.id);
    expect(await scores()).toEqual([50, 90, 50]);
  });

  it('recounts without a deadlock against an answer to the question the publish drops: the enrollments are locked before the slides, as an answer takes them', async () => {
    const s = await quizCourse({ max_quiz_attempts: null }, 1);
    const [ann] = s.clients;
    const enrollment = s.enrollments[0].id as number;
    expect((await answer(ann, s.course.id, s.quiz, ['blue'])).status).toBe(201);
    expect((await f.author.delete(`${slidesOf(s.course.id)}/${s.primes}`)).status).toBe(204);
    // An answer to the slide being dropped, taking its locks as the answer path does: the enrollment's row, then the
    // slide's (the answer's foreign key), while the publish runs.
    const publishing = await holdingLock(f.t.db.url, 'SELECT 1 FROM catalog.enrollments WHERE id = $1 FOR UPDATE', [enrollment], async (held) => {
      const res = f.author.post(`${COURSES}/${s.course.id}/publish`, {});
      await held.waiters();
      await held.query(
        `INSERT INTO catalog.slide_responses (account_id, enrollment_id, course_template_id, slide_id, user_id, attempt, choice_ids, correct)
         VALUES ($1, $2, $3, $4, $5, 1, '{p2,p7}', true)`,
        [f.cast.accountId, enrollment, Number(s.course.id), s.primes, s.users[0].userId],
      );
      await held.release();
      return res;
    });
    expect(publishing.status).toBe(200);
    // One question left, answered right.
    expect((await ann.get(`/api/learner/courses/${enrollment}`)).body.courses[0].score).toBe(100);
  });

  it('neither records an answer nor moves progress in a course unpublished while the request waits for the enrollment (404)', async () => {
    const s = await quizCourse({}, 1);
    const [ann] = s.clients;
    const enrollment = s.enrollments[0].id as number;
    for (const act of [() => answer(ann, s.course.id, s.quiz, ['blue']), () => ann.post(`/api/learner/courses/${s.course.id}/slides/${s.primes}/view`)]) {
      // The request finds the course served, then waits for the enrollment's row while the unpublish commits.
      const res = await holdingLock(f.t.db.url, 'SELECT 1 FROM catalog.enrollments WHERE id = $1 FOR UPDATE', [enrollment], async (held) => {
        const acting = act();
        await held.waiters();
        expect((await f.author.patch(`${COURSES}/${s.course.id}`, { course_template: { is_published: false } })).status).toBe(200);
        await held.release();
        return acting;
      });
      expect([res.status, res.body?.code]).toEqual([404, 'SLIDE_NOT_FOUND']);
      expect((await f.author.patch(`${COURSES}/${s.course.id}`, { course_template: { is_published: true } })).status).toBe(200);
    }
    expect(await storedAnswers(s.quiz)).toBe(0);
    expect((await ann.get(`/api/learner/courses/${enrollment}`)).body.courses[0]).toMatchObject({ state: 'assigned', progress: 0, score: null });
  });

  it("moves a native course's progress to a slide its learner has seen, never back, and starts the enrollment; refuses others' and unpublished slides", async () => {
    const s = await quizCourse({}, 2);
    const [ann, bob] = s.clients;
    const view = (api: ApiClient, courseId: string | number, slideId: number | string) => api.post(`/api/learner/courses/${courseId}/slides/${slideId}/view`);
    const learnerCourse = async (api: ApiClient, enrollmentId: number) => (await api.get(`/api/learner/courses/${enrollmentId}`)).body.courses[0];

    // Reading the first slide (content, no question) starts the enrollment at slide 1 of 3.
    expect((await view(ann, s.course.id, s.intro)).status).toBe(204);
    expect(await learnerCourse(ann, s.enrollments[0].id)).toMatchObject({ state: 'active', progress: 1, slide_total: 3, score: null });
    expect((await view(ann, s.course.id, s.primes)).status).toBe(204);
    expect((await learnerCourse(ann, s.enrollments[0].id)).progress).toBe(3);
    // Going back, or seeing a slide again, takes nothing back.
    expect((await view(ann, s.course.id, s.intro)).status).toBe(204);
    expect((await learnerCourse(ann, s.enrollments[0].id)).progress).toBe(3);

    // Not theirs, not published, not a number: refused, and the other learner's enrollment is untouched.
    const draft = await addSlide(s.course.id, { title: 'Draft', type: 'content' });
    const outsider = f.admin.as((await f.newLearner()).token);
    for (const [label, api, slideId] of [['not enrolled', outsider, s.intro], ['another account', f.stranger, s.intro], ['never published', bob, draft.id], ['unknown', bob, 999_999]] as [string, ApiClient, number][]) {
      const res = await view(api, s.course.id, slideId);
      expect([label, res.status, res.body.code]).toEqual([label, 404, 'SLIDE_NOT_FOUND']);
    }
    expect((await view(bob, s.course.id, 'first')).status).toBe(400);
    expect(await learnerCourse(bob, s.enrollments[1].id)).toMatchObject({ state: 'assigned', progress: 0 });

    // A completed enrollment stays as it completed.
    expect((await bob.post(`/api/learner/courses/${s.enrollments[1].id}/complete`)).status).toBe(200);
    const completed = await learnerCourse(bob, s.enrollments[1].id);
    expect((await view(bob, s.course.id, s.intro)).status).toBe(204);
    expect(await learnerCourse(bob, s.enrollments[1].id)).toEqual(completed);
  });

  it("lets an enrolled learner read the course's published slides in order, questions without their verdicts, with their own latest answer", async () => {
    const s = await quizCourse({ max_quiz_attempts: 2, show_correct_response: true }, 2);
    const [ann, bob] = s.clients;
    const slidesPath = `/api/learner/courses/${s.course.id}/slides`;
    await addSlide(s.course.id, { title: 'Draft only', type: 'content' });

    const listed = await ann.get(slidesPath);
    expect(listed.status).toBe(200);
    expect(await undocumented(ann, 'GET', '/api/learner/courses/:course_id/slides', 200, listed.body)).toBeUndefined();
    expect(listed.body.slides.map((x: Json) => [x.id, x.position, x.attributes.title])).toEqual([[s.intro, 1, 'Intro'], [s.quiz, 2, 'Sky colour'], [s.primes, 3, 'Primes']]);
    const quiz = listed.body.slides[1];
    expect(quiz.attributes.question).toEqual({ prompt: QUESTION.prompt, choices: CHOICES.map(({ id, text }) => ({ id, text })), multiple: false });
    expect(JSON.stringify(listed.body)).not.toContain('"correct"');
    expect([quiz.response, listed.body.slides[0].attributes.question]).toEqual([null, null]);

    // A wrong answer with an attempt left: shown as the learner's, the correct choices still hidden; the other learner sees none of it.
    await answer(ann, s.course.id, s.quiz, ['red']);
    const one = await ann.get(`${slidesPath}/${s.quiz}`);
    expect(one.status).toBe(200);
    expect(one.body.slides[0].response).toMatchObject({ choice_ids: ['red'], correct: false, attempt: 1, attempts_remaining: 1 });
    expect(one.body.slides[0].response).not.toHaveProperty('correct_choice_ids');
    expect((await bob.get(`${slidesPath}/${s.quiz}`)).body.slides[0].response).toBeNull();
    // The last attempt used: the latest answer, with the correct choices.
    await answer(ann, s.course.id, s.quiz, ['green']);
    expect((await ann.get(`${slidesPath}/${s.quiz}`)).body.slides[0].response).toMatchObject({ choice_ids: ['green'], attempt: 2, attempts_remaining: 0, correct_choice_ids: ['blue'] });

    // Paged like every list.
    const page = await ann.get(`${slidesPath}?per_page=2&page=2`);
    expect([page.body.slides.map((x: Json) => x.id), page.headers.get('link')]).toEqual([[s.primes], expect.stringContaining('rel="first"')]);

    // Not enrolled, another account, the author, a draft slide, another course: 404; a bad id 400.
    const outsider = f.admin.as((await f.newLearner()).token);
    for (const [label, api, path, code] of [
      ['not enrolled', outsider, slidesPath, 'COURSE_TEMPLATE_NOT_FOUND'],
      ['another account', f.stranger, slidesPath, 'COURSE_TEMPLATE_NOT_FOUND'],
      ['the author, not enrolled', f.author, slidesPath, 'COURSE_TEMPLATE_NOT_FOUND'],
      ['a slide never published', ann, `${slidesPath}/${(await f.author.get(`${COURSES}/${s.course.id}/slides`)).body.slides.at(-1).id}`, 'SLIDE_NOT_FOUND'],
      ['an unknown slide', ann, `${slidesPath}/999999`, 'SLIDE_NOT_FOUND'],
    ] as const) {
      const res = await api.get(path);
      expect([label, res.status, res.body.code]).toEqual([label, 404, code]);
    }
    expect((await ann.get('/api/learner/courses/abc/slides')).status).toBe(400);
    // A course taken away from learners shows nothing.
    expect((await f.author.patch(`${COURSES}/${s.course.id}`, { course_template: { is_published: false } })).status).toBe(200);
    expect((await ann.get(slidesPath)).status).toBe(404);
  });

  it('replays a retried answer with the same Idempotency-Key instead of spending another attempt', async () => {
    const s = await quizCourse({}, 1);
    const [ann] = s.clients;
    const key = { 'Idempotency-Key': `quiz-${s.quiz}` };
    const first = await answer(ann, s.course.id, s.quiz, ['red'], key);
    const again = await answer(ann, s.course.id, s.quiz, ['red'], key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await storedAnswers(s.quiz)).toBe(1);
    // The same key with another answer is a 422; a new key is a new attempt.
    expect((await answer(ann, s.course.id, s.quiz, ['blue'], key)).status).toBe(422);
    expect((await answer(ann, s.course.id, s.quiz, ['blue'], { 'Idempotency-Key': `quiz-${s.quiz}-2` })).body.response).toMatchObject({ attempt: 2, correct: true });
  });

  it('moves progress consistently while a publish takes slides away: views and answers racing it never answer 5xx', async () => {
    const s = await quizCourse({ max_quiz_attempts: null }, 4);
    const fillers: number[] = [];
    const addFillers = async () => {
      const res = await f.author.post(slidesOf(s.course.id), { slides: Array.from({ length: 20 }, (_, i) => ({ draft_attributes: { title: `Filler ${i}`, allow_comments: null }, new_position: 1 })) });
      expect(res.status).toBe(201);
      fillers.push(...(res.body.slides as Json[]).map((slide) => slide.id as number));
    };
    await addFillers();
    await publish(s.course.id);
    const statuses = new Map<number, number>();
    for (let round = 0; round < 6; round++) {
      // Drafts without the fillers: the publish takes the last slide from position 23 of 23 to 3 of 3.
      for (const id of fillers.splice(0)) expect((await f.author.delete(`${slidesOf(s.course.id)}/${id}`)).status).toBe(204);
      let racing = true;
      const learners = s.clients.map(async (api, i) => {
        while (racing) {
          const res = i % 2 === 0 ? await api.post(`/api/learner/courses/${s.course.id}/slides/${s.primes}/view`) : await answer(api, s.course.id, s.primes, ['p2', 'p7']);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await publish(s.course.id);
      await new Promise((resolve) => setTimeout(resolve, 100));
      racing = false;
      await Promise.all(learners);
      await addFillers();
      await publish(s.course.id);
    }
    expect([...statuses.keys()].sort()).toEqual([201, 204]);
    const progress = await queryDatabase<{ progress: string }>(f.t.db.url, 'SELECT progress FROM catalog.enrollments WHERE enrollable_id = $1 AND deleted_at IS NULL', [Number(s.course.id)]);
    for (const row of progress) expect(Number(row.progress)).toBeLessThanOrEqual(1);
  });
});
