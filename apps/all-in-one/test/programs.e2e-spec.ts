import { type CatalogFixture, COURSES, PROGRAMS, startCatalogFixture, TASKS } from './catalog-fixture.js';

describe('programs, end to end', () => {
  let f: CatalogFixture;
  const createProgram = async (fields: Record<string, unknown> = {}, api = f.author) => {
    const res = await api.post(PROGRAMS, { programs: [{ title: 'New hires', ...fields }] });
    if (res.status !== 201) throw new Error(`creating a program answered ${res.status}: ${res.text}`);
    return res.body.programs[0];
  };
  const programIdsOf = async (courseId: string) => (await f.author.get(`${COURSES}/${courseId}?includes[]=programs`)).body.course_templates[0].program_ids;

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-programs');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates a program from `programs: [{title}]` (201): unpublished, no courses, open enrollment off, with its uuid and enroll_url', async () => {
    const res = await f.author.post(PROGRAMS, { programs: [{ title: '  Onboarding path ' }] });
    expect(res.status).toBe(201);
    const program = res.body.programs[0];
    expect(program).toEqual({
      id: expect.stringMatching(/^\d+$/),
      title: 'Onboarding path',
      description: null,
      is_published: false,
      author_id: String(f.cast.author.userId),
      course_template_ids: [],
      courses_count: 0,
      items: [],
      open_enrollment: false,
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      enroll_url: `/api/learner/open_programs/${program.uuid}/enrollment`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const event = await f.eventOf('catalog.program.created', (d) => d.id === Number(program.id));
    expect(event.data).toEqual({ id: Number(program.id), title: 'Onboarding path', is_published: false, open_enrollment: false, course_template_ids: [], items: [] });
  });

  it('creates programs with ordered courses, a description, publication and open enrollment; courses show them in program_ids', async () => {
    const [a, b, c] = [await f.createCourse({ title: 'A' }), await f.createCourse({ title: 'B' }), await f.createCourse({ title: 'C' })];
    const res = await f.author.post(PROGRAMS, {
      programs: [
        { title: 'Sales', description: 'Sell well', course_template_ids: [Number(c.id), Number(a.id)], is_published: true, open_enrollment: true },
        { title: 'Support', course_template_ids: [Number(a.id)] },
      ],
    });
    expect(res.status).toBe(201);
    const [sales, support] = res.body.programs;
    expect(sales).toMatchObject({ title: 'Sales', description: 'Sell well', course_template_ids: [c.id, a.id], courses_count: 2, is_published: true, open_enrollment: true });
    expect(support).toMatchObject({ course_template_ids: [a.id], courses_count: 1, is_published: false });
    expect(await programIdsOf(a.id)).toEqual([sales.id, support.id]);
    expect(await programIdsOf(b.id)).toEqual([]);
    const listed = await f.author.get(`${COURSES}?search=${encodeURIComponent('C')}&includes[]=programs`);
    expect(listed.body.course_templates.find((x: { id: string }) => x.id === c.id).program_ids).toEqual([sales.id]);
    // Create and update answers of a course always carry program_ids.
    const updated = await f.admin.patch(`${COURSES}/${a.id}`, { course_template: { title: 'A2' } });
    expect(updated.body.course_templates[0].program_ids).toEqual([sales.id, support.id]);
  });

  it('lists programs newest first, paged (Link, X-Total-Count) and searchable; shows one; 304 on a matching ETag', async () => {
    const first = await createProgram({ title: 'Findable one' });
    const second = await createProgram({ title: 'findable 100%' });
    await createProgram({ title: 'Other' });
    const found = await f.author.get(`${PROGRAMS}?search=FINDABLE`);
    expect(found.status).toBe(200);
    expect(found.body.programs.map((p: { id: string }) => p.id)).toEqual([second.id, first.id]);
    expect(found.headers.get('x-total-count')).toBe('2');
    expect((await f.author.get(`${PROGRAMS}?search=${encodeURIComponent('100%')}`)).body.programs.map((p: { id: string }) => p.id)).toEqual([second.id]);
    const page = await f.author.get(`${PROGRAMS}?search=findable&per_page=1&page=2`);
    expect(page.body.programs.map((p: { id: string }) => p.id)).toEqual([first.id]);
    expect(page.headers.get('link')).toContain('rel="prev"');
    const shown = await f.author.get(`${PROGRAMS}/${first.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.programs).toEqual([first]);
    expect((await f.author.get(`${PROGRAMS}/${first.id}`, { 'if-none-match': shown.headers.get('etag') as string })).status).toBe(304);
  });

  it('updates with PATCH and PUT under `program`; course_template_ids replaces and reorders the list', async () => {
    const [a, b, c] = [await f.createCourse(), await f.createCourse(), await f.createCourse()];
    const program = await createProgram({ course_template_ids: [Number(a.id), Number(b.id)] });
    const patched = await f.author.patch(`${PROGRAMS}/${program.id}`, { program: { title: 'Renamed', is_published: true } });
    expect(patched.status).toBe(200);
    expect(patched.body.programs[0]).toMatchObject({ title: 'Renamed', is_published: true, course_template_ids: [a.id, b.id] });
    const put = await f.author.put(`${PROGRAMS}/${program.id}`, { program: { course_template_ids: [Number(c.id), Number(a.id)], open_enrollment: true, description: 'd' } });
    expect(put.status).toBe(200);
    expect(put.body.programs[0]).toMatchObject({ title: 'Renamed', description: 'd', open_enrollment: true, course_template_ids: [c.id, a.id], courses_count: 2 });
    expect(await programIdsOf(b.id)).toEqual([]);
    expect(await programIdsOf(c.id)).toEqual([program.id]);
    const event = await f.eventOf('catalog.program.updated', (d) => d.id === Number(program.id) && (d.course_template_ids as number[]).length === 2 && (d.course_template_ids as number[])[0] === Number(c.id));
    expect(event.data).toMatchObject({ open_enrollment: true, course_template_ids: [Number(c.id), Number(a.id)] });
    const emptied = await f.admin.patch(`${PROGRAMS}/${program.id}`, { program: { course_template_ids: [] } });
    expect(emptied.body.programs[0]).toMatchObject({ course_template_ids: [], courses_count: 0 });
  });

  it('refuses bad input with 400 naming the field and changes nothing', async () => {
    const course = await f.createCourse();
    const archived = await f.createCourse();
    expect((await f.admin.delete(`${COURSES}/${archived.id}`)).status).toBe(204);
    const foreign = await f.createCourse({}, f.stranger);
    const program = await createProgram({ title: 'Unchanged', course_template_ids: [Number(course.id)] });
    const cases: [unknown, string][] = [
      [{ program: { title: '' } }, 'program.title'],
      [{ program: { title: null } }, 'program.title'],
      [{ program: { course_template_ids: [Number(course.id), Number(course.id)] } }, 'program.course_template_ids'],
      [{ program: { course_template_ids: ['x'] } }, 'program.course_template_ids'],
      [{ program: { course_template_ids: [0] } }, 'program.course_template_ids'],
      [{ program: { course_template_ids: [999_999] } }, 'program.course_template_ids[0]'],
      [{ program: { course_template_ids: [Number(course.id), Number(archived.id)] } }, 'program.course_template_ids[1]'],
      [{ program: { course_template_ids: [Number(foreign.id)] } }, 'program.course_template_ids[0]'],
      [{ program: { is_published: 'yes' } }, 'program.is_published'],
      [{ program: { author_id: 5 } }, 'program.author_id'],
      [{ programs: [{ title: 'x' }] }, 'programs'],
    ];
    for (const [body, field] of cases) {
      const res = await f.author.patch(`${PROGRAMS}/${program.id}`, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await f.author.post(PROGRAMS, { programs: [{ description: 'no title' }] })).status).toBe(400);
    expect((await f.author.post(PROGRAMS, { programs: [] })).status).toBe(400);
    expect((await f.author.post(PROGRAMS, { programs: [{ title: 'nul\u0000' }] })).status).toBe(400);
    // All or nothing: the second program's bad course keeps the first from being made.
    const before = (await f.author.get(PROGRAMS)).headers.get('x-total-count');
    const partial = await f.author.post(PROGRAMS, { programs: [{ title: 'ok' }, { title: 'bad', course_template_ids: [Number(archived.id)] }] });
    expect(partial.status).toBe(400);
    expect(partial.body).toMatchObject({ code: 'PROGRAM_COURSE_INVALID', errors: [{ field: 'programs[1].course_template_ids[0]' }] });
    expect((await f.author.get(PROGRAMS)).headers.get('x-total-count')).toBe(before);
    expect((await f.author.get(`${PROGRAMS}/${program.id}`)).body.programs[0]).toMatchObject({ title: 'Unchanged', course_template_ids: [course.id] });
  });

  it('deletes a program (204): then 404 everywhere, its courses stay and lose it from program_ids', async () => {
    const course = await f.createCourse();
    const program = await createProgram({ course_template_ids: [Number(course.id)] });
    expect((await f.author.delete(`${PROGRAMS}/${program.id}`)).status).toBe(204);
    expect((await f.author.get(`${PROGRAMS}/${program.id}`)).status).toBe(404);
    expect((await f.author.patch(`${PROGRAMS}/${program.id}`, { program: { title: 'x' } })).status).toBe(404);
    expect((await f.author.delete(`${PROGRAMS}/${program.id}`)).status).toBe(404);
    expect((await f.author.get(PROGRAMS)).body.programs.map((p: { id: string }) => p.id)).not.toContain(program.id);
    expect((await f.author.get(`${COURSES}/${course.id}`)).status).toBe(200);
    expect(await programIdsOf(course.id)).toEqual([]);
    await f.eventOf('catalog.program.deleted', (d) => d.id === Number(program.id));
  });

  it('archiving a course removes it from its programs (the later courses move up); restoring it does not put it back', async () => {
    const [a, b, c] = [await f.createCourse(), await f.createCourse(), await f.createCourse()];
    const one = await createProgram({ course_template_ids: [Number(a.id), Number(b.id), Number(c.id)] });
    const two = await createProgram({ course_template_ids: [Number(b.id)] });
    expect((await f.admin.delete(`${COURSES}/${b.id}`)).status).toBe(204);
    expect((await f.author.get(`${PROGRAMS}/${one.id}`)).body.programs[0]).toMatchObject({ course_template_ids: [a.id, c.id], courses_count: 2 });
    expect((await f.author.get(`${PROGRAMS}/${two.id}`)).body.programs[0]).toMatchObject({ course_template_ids: [], courses_count: 0 });
    await f.eventOf('catalog.program.updated', (d) => d.id === Number(two.id) && (d.course_template_ids as number[]).length === 0);
    // The order is dense again: another course goes to the end.
    const d = await f.createCourse();
    const appended = await f.author.patch(`${PROGRAMS}/${one.id}`, { program: { course_template_ids: [Number(a.id), Number(c.id), Number(d.id)] } });
    expect(appended.body.programs[0].course_template_ids).toEqual([a.id, c.id, d.id]);
    expect((await f.admin.post(`${COURSES}/${b.id}/restore`)).status).toBe(200);
    expect(await programIdsOf(b.id)).toEqual([]);
  });

  it('never leaves an archived course in a program when archives and program writes race', async () => {
    const courses = await Promise.all(Array.from({ length: 8 }, () => f.createCourse()));
    const program = await createProgram();
    const ids = courses.map((c) => Number(c.id));
    const answers = await Promise.all([
      ...courses.map((c) => f.admin.delete(`${COURSES}/${c.id}`)),
      ...ids.map((_, i) => f.author.put(`${PROGRAMS}/${program.id}`, { program: { course_template_ids: ids.slice(i) } })),
    ]);
    expect(answers.map((r) => r.status).every((s) => s === 204 || s === 200 || s === 400)).toBe(true);
    expect((await f.author.get(`${PROGRAMS}/${program.id}`)).body.programs[0].course_template_ids).toEqual([]);
  });

  it('archives several courses of one program at once, without a deadlock', async () => {
    const courses = await Promise.all(Array.from({ length: 4 }, () => f.createCourse()));
    const ids = courses.map((c) => Number(c.id));
    const program = await createProgram({ course_template_ids: ids });
    const archived = await Promise.all(courses.map((c) => f.admin.delete(`${COURSES}/${c.id}`)));
    expect(archived.map((r) => `${r.status} ${r.status >= 400 ? r.text : ''}`.trim())).toEqual(['204', '204', '204', '204']);
    expect((await f.author.get(`${PROGRAMS}/${program.id}`)).body.programs[0].course_template_ids).toEqual([]);
  });

  it('deletes a checkpoint while the course list is replaced in the older form, without a deadlock', async () => {
    const rounds = await Promise.all(Array.from({ length: 4 }, async () => {
      const [a, b] = [await f.createCourse(), await f.createCourse()];
      const task = (await f.author.post(TASKS, { tasks: [{ title: 'Sign-off' }] })).body.tasks[0];
      const p = await createProgram({ items: [{ type: 'CourseTemplate', id: Number(a.id) }, { type: 'Task', id: Number(task.id) }, { type: 'CourseTemplate', id: Number(b.id) }] });
      return { p, a, b, task };
    }));
    const answers = await Promise.all(rounds.flatMap(({ p, a, b, task }) => [
      f.author.delete(`${TASKS}/${task.id}`),
      f.author.patch(`${PROGRAMS}/${p.id}`, { program: { course_template_ids: [Number(b.id), Number(a.id)] } }),
    ]));
    expect(answers.map((r) => `${r.status} ${r.status >= 400 ? r.text : ''}`.trim())).toEqual(rounds.flatMap(() => ['204', '200']));
    for (const { p, a, b } of rounds) {
      const items = (await f.author.get(`${PROGRAMS}/${p.id}`)).body.programs[0].items;
      expect(items.map((i: { type: string; id: string }) => [i.type, i.id])).toEqual([['CourseTemplate', b.id], ['CourseTemplate', a.id]]);
    }
  });

  it("lets the program's author and administrators change it; other authors read it and get 403", async () => {
    const program = await createProgram({ title: 'Mine' });
    expect((await f.otherAuthor.get(`${PROGRAMS}/${program.id}`)).status).toBe(200);
    const refused = await f.otherAuthor.patch(`${PROGRAMS}/${program.id}`, { program: { title: 'Theirs' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('NOT_AN_AUTHOR');
    expect((await f.otherAuthor.put(`${PROGRAMS}/${program.id}`, { program: { title: 'Theirs' } })).status).toBe(403);
    expect((await f.otherAuthor.delete(`${PROGRAMS}/${program.id}`)).status).toBe(403);
    expect((await f.author.get(`${PROGRAMS}/${program.id}`)).body.programs[0].title).toBe('Mine');
    expect((await f.admin.patch(`${PROGRAMS}/${program.id}`, { program: { title: 'By admin' } })).status).toBe(200);
    expect((await f.admin.delete(`${PROGRAMS}/${program.id}`)).status).toBe(204);
  });

  it('keeps accounts apart: another account sees 404 and an empty list; learners are outside the audience', async () => {
    const program = await createProgram();
    expect((await f.stranger.get(`${PROGRAMS}/${program.id}`)).status).toBe(404);
    expect((await f.stranger.patch(`${PROGRAMS}/${program.id}`, { program: { title: 'x' } })).status).toBe(404);
    expect((await f.stranger.put(`${PROGRAMS}/${program.id}`, { program: { title: 'x' } })).status).toBe(404);
    expect((await f.stranger.delete(`${PROGRAMS}/${program.id}`)).status).toBe(404);
    expect((await f.stranger.get(PROGRAMS)).body.programs).toEqual([]);
    expect((await f.learner.get(PROGRAMS)).status).toBe(403);
    expect((await f.learner.post(PROGRAMS, { programs: [{ title: 'x' }] })).status).toBe(403);
    expect((await f.author.get(`${PROGRAMS}/0`)).status).toBe(400);
    expect((await f.author.get(`${PROGRAMS}/999999`)).status).toBe(404);
    expect((await f.author.get(`${PROGRAMS}/${program.id}`)).body.programs[0].title).toBe('New hires');
  });
});
