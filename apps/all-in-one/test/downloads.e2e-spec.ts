import { type ApiClient, eventually, parseCsv, queryDatabase, type TestCast, type TestUser } from '@lms/testing';
import { courseRequest } from './catalog-fixture.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const DOWNLOADS = '/api/downloads';

/** Rows of a CSV as objects by header. */
export const csvRecords = (text: string): Record<string, string>[] => {
  const [header, ...rows] = parseCsv(text);
  return rows.map((row) => Object.fromEntries(header.map((column, i) => [column, row[i]])));
};

/** Downloads through the gateway: jobs records the download, jobs-worker asks the owning service for the rows. */
describe('downloads', () => {
  let t: TestSystem;
  let cast: TestCast;
  let admin: TestUser;
  let adminApi: ApiClient;
  let otherAdmin: ApiClient;
  let author: ApiClient;
  let learner: ApiClient;
  let stranger: ApiClient;

  const done = (api: ApiClient, id: string) =>
    eventually(async () => {
      const res = await api.get(`${DOWNLOADS}/${id}`);
      return res.body.download?.state === 'done' ? res.body.download : undefined;
    }, 30_000, 100);

  /** Follows the download's url to the signed URL (a 302) and fetches the CSV through the gateway. */
  const fetchCsv = async (api: ApiClient, url: string, name: string): Promise<string> => {
    const redirect = await api.get(url);
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^/files/jobs/[0-9a-f-]{36}/[0-9]+/${name}\\?`));
    const file = await fetch(`${t.system.url}${location}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(file.headers.get('content-disposition')).toContain(`filename="${name}"`);
    return file.text();
  };

  const create = (api: ApiClient, download_type: string, info?: Record<string, unknown>) => api.post(DOWNLOADS, { download: { download_type, ...(info ? { info } : {}) } });

  beforeAll(async () => {
    t = await startTestSystem();
    cast = await t.factory.cast();
    admin = await t.factory.user(cast.accountId, ['admin']);
    adminApi = t.api.as(admin.token);
    otherAdmin = t.api.as((await t.factory.user(cast.accountId, ['admin'])).token);
    author = t.api.as(cast.author.token);
    learner = t.api.as(cast.learner.token);
    stranger = t.api.as(cast.stranger.token);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it("downloads the account's users as a CSV whose rows are the API's, and nothing of another account", async () => {
    await adminApi.post('/api/admin/users', { users: [{ uid: 'csv-ada', first_name: 'Ada, "the first"', last_name: 'Lovelace\nKing', email: 'ada@csv.test' }] });
    // A name a spreadsheet would run as a formula: the report shows it, with a leading quote.
    await adminApi.post('/api/admin/users', { users: [{ uid: 'csv-eve', first_name: '=HYPERLINK("http://evil.test","x")', last_name: '@SUM(A1)', email: 'eve@csv.test' }] });
    await stranger.post('/api/admin/users', { users: [{ uid: 'stranger-csv', first_name: 'Stranger', email: 'stranger@elsewhere.test' }] });

    const res = await create(adminApi, 'users');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ download: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), download_type: 'users', user_id: String(admin.userId), state: 'pending', url: null } });
    const { id } = res.body.download;
    const finished = await done(adminApi, id);
    expect(finished).toEqual({ id, download_type: 'users', user_id: String(admin.userId), state: 'done', url: `/api/downloads/${id}/file` });

    const rows = csvRecords(await fetchCsv(adminApi, finished.url, 'users.csv'));
    const apiUsers = (await adminApi.get('/api/admin/users?per_page=100')).body.users as { id: number; uid: string; email: string | null; first_name: string | null; last_name: string | null }[];
    const shown = (text: string | null) => (text && /^[=+\-@\t\r]/.test(text) ? `'${text}` : (text ?? ''));
    expect(rows.map((u) => [u.id, u.uid, u.email, u.first_name, u.last_name])).toEqual(
      apiUsers.map((u) => [String(u.id), u.uid, shown(u.email), shown(u.first_name), shown(u.last_name)]).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    expect(rows.find((u) => u.uid === 'csv-ada')).toMatchObject({ first_name: 'Ada, "the first"', last_name: 'Lovelace\nKing' });
    expect(rows.find((u) => u.uid === 'csv-eve')).toMatchObject({ first_name: `'=HYPERLINK("http://evil.test","x")`, last_name: "'@SUM(A1)" });
    expect(rows.some((u) => u.uid === 'stranger-csv')).toBe(false);
  }, 60_000);

  it('is its creator\'s alone: another user of the account gets 403, another account 404, an unknown id 404', async () => {
    const { id } = (await create(adminApi, 'users')).body.download;
    await done(adminApi, id);
    for (const api of [otherAdmin, learner, author]) {
      for (const path of [`${DOWNLOADS}/${id}`, `${DOWNLOADS}/${id}/file`]) {
        const res = await api.get(path);
        expect([path, res.status, res.body.code]).toEqual([path, 403, res.status === 403 ? 'DOWNLOAD_FORBIDDEN' : res.body.code]);
      }
    }
    for (const path of [`${DOWNLOADS}/${id}`, `${DOWNLOADS}/${id}/file`]) {
      const res = await stranger.get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    for (const unknown of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1']) {
      expect((await adminApi.get(`${DOWNLOADS}/${unknown}`)).status).toBe(404);
      expect((await adminApi.get(`${DOWNLOADS}/${unknown}/file`)).status).toBe(404);
    }
    const anonymous = t.api.as(undefined);
    expect((await anonymous.get(`${DOWNLOADS}/${id}`)).status).toBe(401);
    expect((await anonymous.get(`${DOWNLOADS}/${id}/file`)).status).toBe(401);
    expect((await anonymous.post(DOWNLOADS, { download: { download_type: 'users' } })).status).toBe(401);
  }, 60_000);

  it('answers url null and the file 404 until the download is done, and in the failed state', async () => {
    const { id } = (await create(adminApi, 'users')).body.download;
    await done(adminApi, id);
    for (const state of ['pending', 'running', 'failed']) {
      await queryDatabase(t.db.url, 'UPDATE jobs.jobs SET status = $2 WHERE id = $1', [id, state]);
      const shown = await adminApi.get(`${DOWNLOADS}/${id}`);
      expect(shown.body.download).toMatchObject({ id, state, url: null });
      const file = await adminApi.get(`${DOWNLOADS}/${id}/file`);
      expect([state, file.status, file.body.code]).toEqual([state, 404, 'DOWNLOAD_NOT_READY']);
    }
    await queryDatabase(t.db.url, "UPDATE jobs.jobs SET status = 'done' WHERE id = $1", [id]);
    expect((await adminApi.get(`${DOWNLOADS}/${id}/file`)).status).toBe(302);
  });

  it('checks the type: 403 without permission for it, 422 for an unknown type, bad info or a malformed body; nothing is created', async () => {
    const before = await t.factory.count("jobs.jobs WHERE kind = 'download'");
    // Administrators only.
    for (const type of ['users', 'quiz_report', 'sign_in_report']) expect([type, (await create(author, type)).status]).toEqual([type, 403]);
    // Learners have no download type at all.
    const course = (await adminApi.post('/api/author/course_templates', { course_templates: [courseRequest({ title: 'Admin course' })] })).body.course_templates[0];
    for (const [type, info] of [['users', undefined], ['course_enrollments', { course_template_id: course.id }]] as const) {
      expect([type, (await create(learner, type, info)).status]).toEqual([type, 403]);
    }
    // An author may download the enrollments of their own courses only.
    const notTheirs = await create(author, 'course_enrollments', { course_template_id: course.id });
    expect([notTheirs.status, notTheirs.body.code]).toEqual([403, 'EXPORT_FORBIDDEN']);

    const unknownType = await create(adminApi, 'grades');
    expect(unknownType.status).toBe(422);
    expect(unknownType.body).toMatchObject({ code: 'UNKNOWN_DOWNLOAD_TYPE', errors: [{ field: 'download.download_type', message: "unknown download type 'grades'" }] });
    for (const [type, info] of [
      ['course_enrollments', {}],
      ['course_enrollments', { course_template_id: 'one' }],
      ['course_enrollments', { course_template_id: -1 }],
      ['course_enrollments', { course_template_id: 2_147_483_648 }],
      ['course_enrollments', { course_template_id: 99_999_999 }],
      ['session_registrations', { session_id: 99_999_999 }],
      ['quiz_report', { course_template_id: 99_999_999 }],
      ['sign_in_report', { start_date: '2026-02-30' }],
      ['sign_in_report', { start_date: '2026-03-02', end_date: '2026-03-01' }],
    ] as const) {
      const res = await create(adminApi, type, info);
      expect([type, info, res.status, res.headers.get('content-type')]).toEqual([type, info, 422, expect.stringMatching(/^application\/problem\+json/)]);
    }
    // Another account's course is not found in the stranger's account: a 422 there too.
    expect((await create(stranger, 'course_enrollments', { course_template_id: course.id })).status).toBe(422);
    for (const body of [{}, { download: 'users' }, { download: { download_type: 7 } }, { download: { download_type: 'users', info: 'x' } }, { download: { download_type: 'users' }, extra: 1 }]) {
      // The spec's "422 not created": the route's table lists no 400.
      expect([body, (await adminApi.post(DOWNLOADS, body)).status]).toEqual([body, 422]);
    }
    expect(await t.factory.count("jobs.jobs WHERE kind = 'download'")).toBe(before);
  });

  it('leaves out info a type does not read (the spec calls info "currently unused"), and checks what it reads', async () => {
    const users = await create(adminApi, 'users', { format: 'csv', columns: ['uid'] });
    expect([users.status, users.body.download.download_type]).toEqual([201, 'users']);
    const course = (await adminApi.post('/api/author/course_templates', { course_templates: [courseRequest({ title: 'Info course' })] })).body.course_templates[0];
    expect((await create(adminApi, 'course_enrollments', { course_template_id: course.id, format: 'csv' })).status).toBe(201);
    expect((await create(adminApi, 'course_enrollments', { course_id: course.id })).body.errors).toEqual([{ field: 'download.info.course_template_id', message: 'is required' }]);
  });

  it("downloads a course's enrollments for the course's author, with each learner's uid, name and e-mail, equal to the API's", async () => {
    const course = (await author.post('/api/author/course_templates', { course_templates: [courseRequest({ title: 'Author course', is_published: true })] })).body.course_templates[0];
    const learners = [await t.factory.user(cast.accountId, ['learner']), await t.factory.user(cast.accountId, ['learner'])];
    const enrolled = await author.post(`/api/author/course_templates/${course.id}/enrollments`, { enrollments: learners.map((l) => ({ user_id: l.userId })) });
    expect(enrolled.status).toBe(201);

    const res = await create(author, 'course_enrollments', { course_template_id: course.id });
    expect(res.status).toBe(201);
    const finished = await done(author, res.body.download.id);
    const rows = csvRecords(await fetchCsv(author, finished.url, `course_enrollments_${course.id}.csv`));
    const listed = (await author.get(`/api/author/course_templates/${course.id}/enrollments?per_page=100`)).body;
    const api = listed.enrollments as { id: number; state: string; progress: number; links: { learner: { id: number } } }[];
    const names = new Map((listed.linked.learners as { id: number; name: string }[]).map((l) => [l.id, l.name]));
    expect(rows.map((r) => [r.id, r.user_id, r.user_name, r.state, r.progress]).sort()).toEqual(
      api.map((e) => [String(e.id), String(e.links.learner.id), names.get(e.links.learner.id), e.state, String(e.progress)]).sort(),
    );
    expect(rows.map((r) => r.user_uid).sort()).toEqual(learners.map((l) => l.uid).sort());
    expect(rows.map((r) => r.user_email).sort()).toEqual(learners.map((l) => `${l.uid}@example.test`).sort());
    expect(parseCsv(await fetchCsv(author, finished.url, `course_enrollments_${course.id}.csv`))[0]).toEqual([
      'id', 'course_template_id', 'user_id', 'user_uid', 'user_name', 'user_email', 'state', 'required', 'score', 'progress', 'created_at', 'started_at', 'completed_at', 'due_at', 'expires_at', 'group_id', 'program_id',
    ]);
  }, 60_000);

  it("downloads a live session's registrations equal to the API's", async () => {
    const live = (await adminApi.post('/api/author/live_courses', { live_courses: [{ title: 'Live CSV' }] })).body.live_courses[0];
    const session = (await adminApi.post(`/api/author/live_courses/${live.id}/sessions`, { sessions: [{ seats: 10 }] })).body.sessions[0];
    for (let i = 0; i < 2; i += 1) {
      const user = await t.factory.user(cast.accountId, ['learner']);
      expect((await adminApi.post(`/api/author/live_courses/${live.id}/learners`, { learners: [{ user_id: user.userId }] })).status).toBe(201);
      expect((await adminApi.post(`/api/author/live_course_sessions/${session.id}/registrations`, { user_id: user.userId })).status).toBe(204);
    }
    const res = await create(adminApi, 'session_registrations', { session_id: session.id });
    expect(res.status).toBe(201);
    const finished = await done(adminApi, res.body.download.id);
    const rows = csvRecords(await fetchCsv(adminApi, finished.url, `session_registrations_${session.id}.csv`));
    const api = (await adminApi.get(`/api/author/live_course_sessions/${session.id}/registrations`)).body.registrations as { id: string; user_id: string; name: string }[];
    expect(rows.map((r) => [r.id, r.user_id, r.user_name, r.session_id, r.live_course_id]).sort()).toEqual(api.map((r) => [String(r.id), String(r.user_id), r.name, String(session.id), String(live.id)]).sort());
    expect(rows).toHaveLength(2);
    // Another account's administrator cannot name this session.
    expect((await create(stranger, 'session_registrations', { session_id: Number(session.id) })).status).toBe(422);
    // A deleted live course's session is not found, as on the registration routes: a 422, nothing created.
    expect((await adminApi.delete(`/api/author/live_courses/${live.id}`)).status).toBe(204);
    expect((await adminApi.get(`/api/author/live_course_sessions/${session.id}/registrations`)).status).toBe(404);
    const gone = await create(adminApi, 'session_registrations', { session_id: session.id });
    expect([gone.status, gone.body.code]).toEqual([422, 'INVALID_DOWNLOAD_INFO']);
  }, 60_000);
});
