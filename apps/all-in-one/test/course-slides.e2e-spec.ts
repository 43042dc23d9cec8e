import { queryDatabase } from '@lms/testing';
import { COURSES, type CatalogFixture, startCatalogFixture } from './catalog-fixture.js';

const attributes = (title: string, extra: Record<string, unknown> = {}) => ({ title, body: `<p>${title}</p>`, type: 'content', allow_comments: true, ...extra });

describe('course slides, end to end', () => {
  let f: CatalogFixture;
  const slidesOf = (courseId: string) => `${COURSES}/${courseId}/slides`;
  const addSlides = (courseId: string, slides: Record<string, unknown>[], api = f.admin) => api.post(slidesOf(courseId), { slides });
  const order = async (courseId: string) =>
    (await f.admin.get(`${slidesOf(courseId)}?per_page=1000`)).body.slides.map((s: { draft_attributes: { title: string }; new_position: number }) => [s.new_position, s.draft_attributes.title]);

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-course-slides');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates slides (201) as OrderedSlides, appending or inserting at new_position, and sums estimated_time on the course', async () => {
    const course = await f.createCourse({ title: 'Slides course' }, f.author);
    const created = await addSlides(course.id, [{ draft_attributes: attributes('A'), estimated_time: 5 }, { draft_attributes: attributes('C'), estimated_time: 7, attachments: [{ url: 'https://x.test/a.pdf' }] }], f.author);
    expect(created.status).toBe(201);
    expect(created.body.slides[0]).toEqual({
      id: expect.any(Number), position: null, new_position: 1, published_attributes: null, draft_attributes: attributes('A'), published_at: null, estimated_time: 5, attachments: [],
    });
    expect((await addSlides(course.id, [{ draft_attributes: attributes('B'), new_position: 2 }], f.author)).status).toBe(201);
    expect((await addSlides(course.id, [{ draft_attributes: attributes('D'), new_position: 99 }], f.author)).body.slides[0].new_position).toBe(4);
    expect(await order(course.id)).toEqual([[1, 'A'], [2, 'B'], [3, 'C'], [4, 'D']]);
    const shown = (await f.author.get(`${COURSES}/${course.id}`)).body.course_templates[0];
    expect(shown).toMatchObject({ estimated_time: 12, attachments_count: 1, has_unpublished_changes: true });
    const withContent = (await f.author.get(`${COURSES}/${course.id}?includes[]=with_content`)).body.course_templates[0];
    expect(withContent.slides.map((s: { draft_attributes: { title: string } }) => s.draft_attributes.title)).toEqual(['A', 'B', 'C', 'D']);
  });

  it('shows, edits (PATCH and PUT) and moves a slide; the others shift so positions stay 1..n', async () => {
    const course = await f.createCourse({ title: 'Moves' });
    const slides = (await addSlides(course.id, ['A', 'B', 'C', 'D'].map((t) => ({ draft_attributes: attributes(t) })))).body.slides;
    const shown = await f.admin.get(`${slidesOf(course.id)}/${slides[0].id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.slides[0].draft_attributes.title).toBe('A');
    const moved = await f.admin.patch(`${slidesOf(course.id)}/${slides[0].id}`, { slide: { new_position: 3 } });
    expect(moved.status).toBe(200);
    expect(moved.body.slides[0].new_position).toBe(3);
    expect(await order(course.id)).toEqual([[1, 'B'], [2, 'C'], [3, 'A'], [4, 'D']]);
    await f.admin.put(`${slidesOf(course.id)}/${slides[3].id}`, { slide: { new_position: 1, draft_attributes: attributes('D2'), estimated_time: 3 } });
    expect(await order(course.id)).toEqual([[1, 'D2'], [2, 'B'], [3, 'C'], [4, 'A']]);
    await f.admin.patch(`${slidesOf(course.id)}/${slides[1].id}`, { slide: { new_position: 500 } });
    expect(await order(course.id)).toEqual([[1, 'D2'], [2, 'C'], [3, 'A'], [4, 'B']]);
  });

  it('keeps draft positions dense and unique under 20 concurrent moves in one course', async () => {
    const course = await f.createCourse({ title: 'Concurrent moves' });
    const slides = (await addSlides(course.id, Array.from({ length: 10 }, (_, i) => ({ draft_attributes: attributes(`S${i}`) })))).body.slides as { id: number }[];
    const moves = Array.from({ length: 20 }, (_, i) => f.admin.patch(`${slidesOf(course.id)}/${slides[i % 10].id}`, { slide: { new_position: ((i * 7) % 10) + 1 } }));
    const answers = await Promise.all(moves);
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const positions = (await order(course.id)).map(([p]: [number]) => p);
    expect(positions).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const rows = await queryDatabase<{ n: string; d: string }>(f.t.db.url, 'SELECT count(*) AS n, count(DISTINCT new_position) AS d FROM catalog.slides WHERE course_template_id = $1', [Number(course.id)]);
    expect(rows[0]).toEqual({ n: '10', d: '10' });
  });

  it('publishing copies drafts to published_attributes and position and sets published_at; a deleted slide goes at the next publish', async () => {
    const course = await f.createCourse({ title: 'Publish slides' }, f.author);
    const [a, b, c] = (await addSlides(course.id, ['A', 'B', 'C'].map((t) => ({ draft_attributes: attributes(t) })), f.author)).body.slides;
    expect((await f.author.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    const published = (await f.author.get(`${slidesOf(course.id)}/${b.id}`)).body.slides[0];
    expect(published).toMatchObject({ position: 2, new_position: 2, published_attributes: attributes('B'), published_at: expect.any(String) });
    await f.author.patch(`${slidesOf(course.id)}/${a.id}`, { slide: { draft_attributes: attributes('A2') } });
    expect((await f.author.get(`${COURSES}/${course.id}`)).body.course_templates[0].has_unpublished_changes).toBe(true);
    expect((await f.author.delete(`${slidesOf(course.id)}/${b.id}`)).status).toBe(204);
    expect((await f.author.get(`${slidesOf(course.id)}/${b.id}`)).status).toBe(404);
    expect(await order(course.id)).toEqual([[1, 'A2'], [2, 'C']]);
    const stillThere = await queryDatabase<{ position: number }>(f.t.db.url, 'SELECT position FROM catalog.slides WHERE id = $1', [b.id]);
    expect(stillThere).toEqual([{ position: 2 }]);
    const before = (await f.author.get(`${slidesOf(course.id)}/${c.id}`)).body.slides[0];
    expect(before).toMatchObject({ position: 3, new_position: 2 });
    await f.author.post(`${COURSES}/${course.id}/publish`, {});
    expect(await queryDatabase(f.t.db.url, 'SELECT id FROM catalog.slides WHERE id = $1', [b.id])).toEqual([]);
    const after = (await f.author.get(`${slidesOf(course.id)}?per_page=10`)).body.slides;
    expect(after.map((s: { position: number; published_attributes: { title: string } }) => [s.position, s.published_attributes.title])).toEqual([[1, 'A2'], [2, 'C']]);
    // A draft never published goes at once.
    const [d] = (await addSlides(course.id, [{ draft_attributes: attributes('D') }], f.author)).body.slides;
    await f.author.delete(`${slidesOf(course.id)}/${d.id}`);
    expect(await queryDatabase(f.t.db.url, 'SELECT id FROM catalog.slides WHERE id = $1', [d.id])).toEqual([]);
  });

  it.each([
    ['allow_comments missing', { title: 'x' }, 'slides[0].draft_attributes.allow_comments'],
    ['allow_comments not Boolean', { allow_comments: 'yes' }, 'slides[0].draft_attributes.allow_comments'],
    ['attachment_align outside the enum', { allow_comments: null, attachment_align: 'right' }, 'slides[0].draft_attributes.attachment_align'],
    ['static_order not Boolean', { allow_comments: false, static_order: 'no' }, 'slides[0].draft_attributes.static_order'],
    ['cover slide without cover_slide_data', { allow_comments: true, type: 'cover' }, 'slides[0].draft_attributes.cover_slide_data'],
    ['cover slide without heading', { allow_comments: true, type: 'cover', cover_slide_data: { dark: true } }, 'slides[0].draft_attributes.cover_slide_data'],
    ['cover data without dark', { allow_comments: true, cover_slide_data: { heading: 'H' } }, 'slides[0].draft_attributes.cover_slide_data.dark'],
    ['colour not hex', { allow_comments: true, cover_slide_data: { dark: false, backgroundColor: 'red' } }, 'slides[0].draft_attributes.cover_slide_data.backgroundColor'],
    ['primary colour not hex', { allow_comments: true, cover_slide_data: { dark: false, primaryColor: '#12345' } }, 'slides[0].draft_attributes.cover_slide_data.primaryColor'],
    ['image without style', { allow_comments: true, cover_slide_data: { dark: false, backgroundImageUrl: 'https://x.test/i.png', backgroundImageOpacity: 0.5 } }, 'slides[0].draft_attributes.cover_slide_data.backgroundImageStyle'],
    ['image without opacity', { allow_comments: true, cover_slide_data: { dark: false, backgroundImageUrl: 'https://x.test/i.png', backgroundImageStyle: 'cover' } }, 'slides[0].draft_attributes.cover_slide_data.backgroundImageOpacity'],
    ['a javascript: attachment', { allow_comments: true, attachment_url: 'javascript:alert(1)' }, 'slides[0].draft_attributes.attachment_url'],
    ['a data: cover image', { allow_comments: true, cover_slide_data: { dark: false, backgroundImageUrl: 'data:image/png;base64,AAAA', backgroundImageStyle: 'cover', backgroundImageOpacity: 1 } }, 'slides[0].draft_attributes.cover_slide_data.backgroundImageUrl'],
    ['unknown attribute', { allow_comments: true, colour: 'x' }, 'slides[0].draft_attributes.colour'],
    ['U+0000 in the body', { allow_comments: true, body: 'a\u0000' }, 'slides[0].draft_attributes.body'],
  ])('refuses %s (400, field named) and adds nothing', async (_, draft, field) => {
    const course = await f.createCourse({ title: 'Validated' });
    const res = await addSlides(course.id, [{ draft_attributes: draft }]);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await order(course.id)).toEqual([]);
  });

  it('accepts a complete cover slide and hex colours', async () => {
    const course = await f.createCourse({ title: 'Cover' });
    const cover = {
      allow_comments: null, type: 'cover', attachment_align: 'wide', static_order: true,
      cover_slide_data: { dark: true, heading: 'Welcome', intro: 'Hi', backgroundColor: '#fff', primaryColor: '#12AB34', backgroundImageUrl: 'https://x.test/i.png', backgroundImageStyle: 'cover', backgroundImageOpacity: 0.4 },
    };
    const res = await addSlides(course.id, [{ draft_attributes: cover }]);
    expect(res.status).toBe(201);
    expect(res.body.slides[0].draft_attributes).toEqual(cover);
  });

  it('takes attachment and cover image URLs without a top-level domain, and relative ones: what a file store or an intranet serves', async () => {
    const course = await f.createCourse({ title: 'Linked' });
    for (const url of ['/api/files/abc.png', 'http://localhost:8080/img.png', 'https://intranet/img.png']) {
      const draft = { allow_comments: null, attachment_url: url, cover_slide_data: { dark: false, backgroundImageUrl: url, backgroundImageStyle: 'cover', backgroundImageOpacity: 1 } };
      const res = await addSlides(course.id, [{ draft_attributes: draft }]);
      expect([url, res.status]).toEqual([url, 201]);
      expect(res.body.slides[0].draft_attributes).toEqual(draft);
    }
  });

  it('refuses bad update bodies and ids (400), unknown slides (404) and archived courses (400); authors not on the course may not edit (403)', async () => {
    const course = await f.createCourse({ title: 'Guarded slides' }, f.author);
    const [slide] = (await addSlides(course.id, [{ draft_attributes: attributes('A') }], f.author)).body.slides;
    for (const body of [{ slide: { new_position: 0 } }, { slide: { draft_attributes: { title: 'no allow_comments' } } }, { slides: [] }, { slide: { position: 1 } }]) {
      expect((await f.author.patch(`${slidesOf(course.id)}/${slide.id}`, body)).status).toBe(400);
    }
    expect((await f.author.get(`${slidesOf(course.id)}/abc`)).status).toBe(400);
    expect((await f.author.get(`${slidesOf(course.id)}/999999`)).status).toBe(404);
    const other = await f.createCourse({ title: 'Other course' });
    expect((await f.admin.get(`${slidesOf(other.id)}/${slide.id}`)).status).toBe(404);
    expect((await f.otherAuthor.patch(`${slidesOf(course.id)}/${slide.id}`, { slide: { estimated_time: 1 } })).status).toBe(403);
    expect((await addSlides(course.id, [{ draft_attributes: attributes('X') }], f.otherAuthor)).status).toBe(403);
    expect((await f.otherAuthor.delete(`${slidesOf(course.id)}/${slide.id}`)).status).toBe(403);
    expect((await f.otherAuthor.get(`${slidesOf(course.id)}/${slide.id}`)).status).toBe(200);
    await f.author.delete(`${COURSES}/${course.id}`);
    const archived = await addSlides(course.id, [{ draft_attributes: attributes('Late') }], f.author);
    expect(archived.status).toBe(400);
    expect(archived.body.code).toBe('COURSE_TEMPLATE_ARCHIVED');
    expect((await f.author.patch(`${slidesOf(course.id)}/${slide.id}`, { slide: { estimated_time: 1 } })).status).toBe(400);
    expect((await f.author.delete(`${slidesOf(course.id)}/${slide.id}`)).status).toBe(400);
  });

  it('hides slides of another account (404)', async () => {
    const course = await f.createCourse({ title: 'Private slides' });
    const [slide] = (await addSlides(course.id, [{ draft_attributes: attributes('A') }])).body.slides;
    expect((await f.stranger.get(slidesOf(course.id))).status).toBe(404);
    expect((await f.stranger.get(`${slidesOf(course.id)}/${slide.id}`)).status).toBe(404);
    expect((await f.stranger.patch(`${slidesOf(course.id)}/${slide.id}`, { slide: { estimated_time: 1 } })).status).toBe(404);
    expect((await f.stranger.delete(`${slidesOf(course.id)}/${slide.id}`)).status).toBe(404);
    expect((await addSlides(course.id, [{ draft_attributes: attributes('X') }], f.stranger)).status).toBe(404);
  });
});
