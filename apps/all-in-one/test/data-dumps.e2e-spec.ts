import { type ApiClient, eventually, parseCsv, readZip, type TestCast } from '@lms/testing';
import { courseRequest } from './catalog-fixture.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const DUMPS = '/api/admin/data_dumps';

/** The account's data dump through the gateway: jobs records it, jobs-worker makes it from the services' dump subjects. */
describe('data dumps', () => {
  let t: TestSystem;
  let cast: TestCast;
  let stranger: ApiClient;

  /** Rows of one CSV of the archive as objects by header. */
  const csvRecords = (files: Map<string, Buffer>, name: string): Record<string, string>[] => {
    const [header, ...rows] = parseCsv(files.get(name)!.toString('utf8'));
    return rows.map((row) => Object.fromEntries(header.map((column, i) => [column, row[i]])));
  };

  const completeDump = async (api: ApiClient) =>
    eventually(async () => {
      const res = await api.get(DUMPS);
      return res.body.data_dumps[0]?.status === 'complete' ? res.body.data_dumps[0] : undefined;
    }, 30_000, 100);

  /** Follows the download redirect to the signed URL, through the gateway, and unzips what it serves. */
  const download = async (api: ApiClient): Promise<Map<string, Buffer>> => {
    const redirect = await api.get(`${DUMPS}/download`);
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    expect(location).toMatch(/^\/files\/jobs\/[0-9a-f-]{36}\/[0-9]+\/data_dump\.zip\?/); // each dump its own file
    const file = await fetch(`${t.system.url}${location}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/zip');
    expect(file.headers.get('content-disposition')).toContain('filename="data_dump.zip"');
    return readZip(Buffer.from(await file.arrayBuffer()));
  };

  beforeAll(async () => {
    t = await startTestSystem();
    cast = await t.factory.cast();
    stranger = t.api.as(cast.stranger.token);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('lists no dump and answers 404 to a download before the first dump', async () => {
    const list = await t.api.get(DUMPS);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ meta: {}, data_dumps: [] });
    const res = await t.api.get(`${DUMPS}/download`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('DATA_DUMP_NOT_FOUND');
  });

  it('lists the models a dump holds, each service\'s tables', async () => {
    const res = await t.api.get(`${DUMPS}/model_names`);
    expect(res.status).toBe(200);
    expect(res.body.model_names).toEqual(expect.arrayContaining(['users', 'groups', 'group_memberships', 'custom_fields', 'course_templates', 'enrollments']));
  });

  it('refuses an unknown model in `only` with a 400 and starts nothing', async () => {
    const res = await t.api.post(DUMPS, { only: ['users', 'passwords'] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'only[1]', message: "unknown model 'passwords'" }]);
    expect((await t.api.post(DUMPS, { only: 'users' })).status).toBe(400);
    // An empty list would make an empty dump, which replaces the account's usable one.
    const none = await t.api.post(DUMPS, { only: [] });
    expect([none.status, none.body.errors]).toEqual([400, [expect.objectContaining({ field: 'only' })]]);
    expect((await t.api.get(DUMPS)).body.data_dumps).toEqual([]);
  });

  it('dumps the account (an empty body) into a zip of one CSV per model whose rows are the API\'s, and nothing of another account', async () => {
    for (const name of ['Ada', 'Grace']) expect((await t.api.post('/api/admin/users', { users: [{ uid: `dump-${name}`, first_name: name, last_name: 'Dumped', email: `${name.toLowerCase()}@dump.test` }] })).status).toBe(200);
    const course = await t.api.post('/api/author/course_templates', { course_templates: [courseRequest({ title: 'Dumped, "quoted"\nand multi-line' })] });
    expect(course.status).toBe(201);
    const group = await t.api.post('/api/author/groups', { groups: [{ name: 'Dump group' }] });
    expect(group.status).toBe(201);
    // Scheduling's tables are in the dump too.
    const live = await t.api.post('/api/author/live_courses', { live_courses: [{ title: 'Dumped live course' }] });
    expect(live.status).toBe(201);
    const session = await t.api.post(`/api/author/live_courses/${live.body.live_courses[0].id}/sessions`, { sessions: [{ location: 'Dump room', seats: 4 }] });
    expect(session.status).toBe(201);
    // Another account's people and courses, which must not appear.
    await stranger.post('/api/admin/users', { users: [{ uid: 'stranger-user', first_name: 'Stranger', email: 'stranger@elsewhere.test' }] });
    await stranger.post('/api/author/course_templates', { course_templates: [courseRequest({ title: 'Stranger course' })] });

    const created = await fetch(`${t.system.url}${DUMPS}`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` } }); // no body at all
    expect(created.status).toBe(200);
    const [pending] = ((await created.json()) as { data_dumps: { status: string; date: string }[] }).data_dumps;
    expect(pending.status).toBe('pending');
    expect(Number.isNaN(Date.parse(pending.date))).toBe(false);

    const complete = await completeDump(t.api);
    expect(complete.date).toBe(pending.date);
    const files = await download(t.api);
    for (const name of ['users.csv', 'groups.csv', 'course_templates.csv', 'enrollments.csv', 'sub_accounts.csv']) expect(files.has(name)).toBe(true);

    const apiUsers = (await t.api.get('/api/admin/users?per_page=100')).body.users as { id: string | number; uid: string; email: string | null }[];
    const dumpedUsers = csvRecords(files, 'users.csv');
    expect(dumpedUsers.map((u) => [String(u.id), u.uid, u.email]).sort()).toEqual(apiUsers.map((u) => [String(u.id), u.uid, u.email ?? '']).sort());
    expect(new Set(dumpedUsers.map((u) => u.account_id))).toEqual(new Set([String(cast.accountId)]));

    const courses = csvRecords(files, 'course_templates.csv');
    expect(courses.map((c) => c.title)).toEqual(['Dumped, "quoted"\nand multi-line']);
    expect(courses[0].id).toBe(String(course.body.course_templates[0].id));
    // Instants as the API renders them (RFC 3339, UTC, milliseconds), null as empty, booleans as words.
    expect(courses[0].created_at).toBe(course.body.course_templates[0].created_at);
    expect(courses[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect([courses[0].published_at, courses[0].is_published]).toEqual(['', 'false']);
    expect(csvRecords(files, 'groups.csv').map((g) => [g.id, g.name])).toEqual([[String(group.body.groups[0].id), 'Dump group']]);
    expect(csvRecords(files, 'live_courses.csv').map((c) => [c.id, c.title])).toEqual([[String(live.body.live_courses[0].id), 'Dumped live course']]);
    expect(csvRecords(files, 'live_course_sessions.csv').map((c) => [c.id, c.location, c.seats])).toEqual([[String(session.body.sessions[0].id), 'Dump room', '4']]);
    for (const name of ['live_course_enrollments.csv', 'live_course_session_registrations.csv', 'live_course_session_waitlist.csv', 'web_conferences.csv']) expect([name, files.has(name)]).toEqual([name, true]);

    const everything = [...files.values()].map((b) => b.toString('utf8')).join('\n');
    expect(everything).not.toContain('stranger@elsewhere.test');
    expect(everything).not.toContain('Stranger course');
    expect(everything).not.toMatch(/token_hash/);
  }, 60_000);

  it('replaces the dump: the last complete one downloads while the next is pending, then `only` limits the models', async () => {
    const res = await t.api.post(DUMPS, { only: ['users', 'course_templates'] });
    expect(res.status).toBe(200);
    expect(res.body.data_dumps).toHaveLength(1);
    expect(res.body.data_dumps[0].status).toBe('pending');
    expect((await t.api.get(`${DUMPS}/download`)).status).toBe(302); // the previous one, until this one is complete
    await completeDump(t.api);
    expect((await t.api.get(DUMPS)).body.data_dumps).toHaveLength(1);
    expect([...(await download(t.api)).keys()].sort()).toEqual(['course_templates.csv', 'users.csv']);
    // `only: null` is no limit, as no body is (the fuzz suite once found it a 500).
    expect((await t.api.post(DUMPS, { only: null })).status).toBe(200);
    await completeDump(t.api);
    expect([...(await download(t.api)).keys()]).toEqual(expect.arrayContaining(['users.csv', 'groups.csv', 'enrollments.csv']));
  }, 60_000);

  it('answers every one of many POSTs sent together, and leaves one current dump', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => t.api.post(DUMPS, {})));
    // Each read its new dump back before the next could replace it (half were 500s when it read after).
    expect(answers.map((res) => res.status)).toEqual(Array(12).fill(200));
    for (const res of answers) expect(res.body.data_dumps).toEqual([{ status: 'pending', date: expect.any(String) }]);
    expect((await t.api.get(DUMPS)).body.data_dumps).toHaveLength(1);
    await completeDump(t.api);
  }, 60_000);

  it('keeps each account to its own dump: another account has none to list or download', async () => {
    expect((await stranger.get(DUMPS)).body.data_dumps).toEqual([]);
    expect((await stranger.get(`${DUMPS}/download`)).status).toBe(404);
  });

  it('is for administrators only', async () => {
    const author = t.api.as(cast.author.token);
    for (const res of [await author.get(DUMPS), await author.post(DUMPS, {}), await author.get(`${DUMPS}/download`), await author.get(`${DUMPS}/model_names`)]) expect(res.status).toBe(403);
    expect((await t.api.as(undefined).get(DUMPS)).status).toBe(401);
  });
});
