import { queryDatabase } from '@lms/testing';
import { COURSES, type CatalogFixture, startCatalogFixture } from './catalog-fixture.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
type Course = Record<string, any>;

describe('course template lists and titles, end to end', () => {
  let f: CatalogFixture;
  const c: Record<string, Course> = {};
  const titlesOf = (body: { course_templates: Course[] }) => body.course_templates.map((x) => x.title);
  const list = async (query: string, api = f.admin) => {
    const res = await api.get(`${COURSES}${query}`);
    expect(res.status).toBe(200);
    return res;
  };

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-course-template-list');
    // Created one by one, so newest-first order is known: alpha … foxtrot.
    c.alpha = await f.createCourse({ title: 'Alpha Safety', has_certificate: true }, f.author);
    c.bravo = await f.createCourse({ title: 'bravo scorm', course_type: 'scorm', is_published: true });
    c.charlie = await f.createCourse({ title: 'Charlie 100%_off', course_type: 'third_party_a' });
    c.delta = await f.createCourse({ title: 'Delta safety', course_type: 'third_party_b', is_published: true, has_certificate: true }, f.author);
    c.echo = await f.createCourse({ title: 'Echo archived' });
    c.foxtrot = await f.createCourse({ title: 'foxtrot' });
    await f.admin.delete(`${COURSES}/${c.echo.id}`);
    await f.admin.patch(`${COURSES}/${c.alpha.id}`, { course_template: { description: 'touched last' } });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('sorts newest (default), title, updated and archived', async () => {
    expect(titlesOf((await list('')).body)).toEqual(['foxtrot', 'Delta safety', 'Charlie 100%_off', 'bravo scorm', 'Alpha Safety']);
    expect(titlesOf((await list('?sort=newest')).body)).toEqual(['foxtrot', 'Delta safety', 'Charlie 100%_off', 'bravo scorm', 'Alpha Safety']);
    expect(titlesOf((await list('?sort=title')).body)).toEqual(['Alpha Safety', 'bravo scorm', 'Charlie 100%_off', 'Delta safety', 'foxtrot']);
    expect(titlesOf((await list('?sort=updated')).body)[0]).toBe('Alpha Safety');
    expect(titlesOf((await list('?sort=archived&with_deleted=true')).body)[0]).toBe('Echo archived');
    expect((await f.admin.get(`${COURSES}?sort=oldest`)).status).toBe(400);
  });

  it('combines filters[] with AND', async () => {
    expect(titlesOf((await list('?filters[]=has_certificate')).body)).toEqual(['Delta safety', 'Alpha Safety']);
    expect(titlesOf((await list('?filters[]=has_certificate&filters[]=unpublished')).body)).toEqual(['Alpha Safety']);
    expect(titlesOf((await list('?filters[]=scorm')).body)).toEqual(['bravo scorm']);
    expect(titlesOf((await list('?filters[]=native')).body)).toEqual(['foxtrot', 'Alpha Safety']);
    expect(titlesOf((await list('?filters[]=third_party_a')).body)).toEqual(['Charlie 100%_off']);
    expect(titlesOf((await list('?filters[]=third_party_b')).body)).toEqual(['Delta safety']);
    expect(titlesOf((await list('?filters[]=native&filters[]=scorm')).body)).toEqual([]);
    expect(titlesOf((await list('?filters[]=my_courses', f.author)).body)).toEqual(['Delta safety', 'Alpha Safety']);
    expect(titlesOf((await list('?filters[]=no_enrollments&filters[]=unpublished')).body)).toEqual(['foxtrot', 'Charlie 100%_off', 'Alpha Safety']);
    expect((await f.admin.get(`${COURSES}?filters[]=popular`)).status).toBe(400);
  });

  it('excludes courses with a live enrollment from no_enrollments, and counts it with includes[]=counts', async () => {
    await queryDatabase(f.t.db.url, `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, required, state, started_at) VALUES ($1, 'CourseTemplate', $2, $3, false, 'active', now())`, [
      f.cast.accountId, Number(c.foxtrot.id), f.cast.learner.userId,
    ]);
    expect(titlesOf((await list('?filters[]=no_enrollments')).body)).not.toContain('foxtrot');
    const counted = (await list('?includes[]=counts&search=foxtrot')).body.course_templates[0];
    expect(counted.enrollments_count).toBe(1);
    expect(counted.enrollment_counts).toEqual({ all: 1, required: 0, optional: 1, finished: 0, not_started: 0, overdue: 0, in_progress: 1 });
  });

  it('searches titles case-insensitively, taking LIKE wildcards literally', async () => {
    expect(titlesOf((await list('?search=SAFETY')).body)).toEqual(['Delta safety', 'Alpha Safety']);
    expect(titlesOf((await list('?search=100%25_')).body)).toEqual(['Charlie 100%_off']);
    expect(titlesOf((await list('?search=_')).body)).toEqual(['Charlie 100%_off']);
    expect(titlesOf((await list('?search=nothing-like-it')).body)).toEqual([]);
  });

  it('orders a title-sorted search by title, paged, filtered and counted like any list', async () => {
    // Three word characters or more: the matches come from the trigram index and are sorted afterwards.
    expect(titlesOf((await list('?search=safety&sort=title')).body)).toEqual(['Alpha Safety', 'Delta safety']);
    const second = await list('?search=afe&sort=title&per_page=1&page=2');
    expect(titlesOf(second.body)).toEqual(['Delta safety']);
    expect(second.headers.get('x-total-count')).toBe('2');
    expect(second.headers.get('link')).toContain('rel="prev"');
    expect(titlesOf((await list('?search=safety&sort=title&filters[]=third_party_b')).body)).toEqual(['Delta safety']);
    expect(titlesOf((await list('?search=safety&sort=title&filters[]=my_courses&filters[]=unpublished', f.author)).body)).toEqual(['Alpha Safety']);
    expect(titlesOf((await list('?search=arc&sort=title&with_deleted=true')).body)).toEqual(['Echo archived']);
    expect(titlesOf((await list('?search=off&sort=title&only_deleted=true')).body)).toEqual([]);
    expect((await list('/titles?search=safety&sort=title')).body.course_templates).toEqual([
      { id: c.alpha.id, title: 'Alpha Safety' },
      { id: c.delta.id, title: 'Delta safety' },
    ]);
  });

  it('adds exactly the conditional fields each includes[] names', async () => {
    const plain = (await list('?search=Alpha')).body.course_templates[0];
    for (const key of ['enrollment_counts', 'expires', 'default_days_until_expiration', 'auto_re_enroll', 're_enrollment_period', 'enroll_url', 'open_enrollment', 'uuid', 'program_ids', 'deleted_at', 'scorm']) {
      expect(plain).not.toHaveProperty(key);
    }
    const counts = (await list('?search=Alpha&includes[]=counts')).body.course_templates[0];
    expect(Object.keys(counts).filter((k) => !(k in plain))).toEqual(['enrollment_counts']);
    const expiration = (await list('?search=Alpha&includes[]=expiration')).body.course_templates[0];
    expect(Object.keys(expiration).filter((k) => !(k in plain)).sort()).toEqual(['auto_re_enroll', 'default_days_until_expiration', 'expires', 're_enrollment_period']);
    expect(expiration).toMatchObject({ expires: false, default_days_until_expiration: null, auto_re_enroll: false, re_enrollment_period: null });
    const profiles = (await list('?search=Alpha&includes[]=enrollment_profiles')).body.course_templates[0];
    expect(Object.keys(profiles).filter((k) => !(k in plain)).sort()).toEqual(['enroll_url', 'open_enrollment', 'uuid']);
    expect(profiles.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const programs = (await list('?search=Alpha&includes[]=programs')).body.course_templates[0];
    expect(Object.keys(programs).filter((k) => !(k in plain))).toEqual(['program_ids']);
    expect((await f.admin.get(`${COURSES}?includes[]=slides`)).status).toBe(400);
  });

  it('lists deleted courses only on request, with deleted_at only then', async () => {
    const live = (await list('')).body.course_templates;
    expect(live.every((x: Course) => !('deleted_at' in x))).toBe(true);
    const only = (await list('?only_deleted=true')).body.course_templates;
    expect(only.map((x: Course) => x.title)).toEqual(['Echo archived']);
    expect(only[0].deleted_at).toEqual(expect.any(String));
    const all = (await list('?with_deleted=true')).body.course_templates;
    expect(all).toHaveLength(6);
    expect(all.find((x: Course) => x.title === 'foxtrot').deleted_at).toBeNull();
  });

  it('filters by the six RFC 3339 date bounds and refuses other date text', async () => {
    const all = (await list('?with_deleted=true')).body.course_templates as Course[];
    const bravo = all.find((x) => x.title === 'bravo scorm') as Course;
    const at = encodeURIComponent(bravo.created_at as string);
    expect(titlesOf((await list(`?created_after=${at}`)).body)).toEqual(['foxtrot', 'Delta safety', 'Charlie 100%_off']);
    expect(titlesOf((await list(`?created_before=${at}`)).body)).toEqual(['Alpha Safety']);
    const alphaUpdated = encodeURIComponent((all.find((x) => x.title === 'Alpha Safety') as Course).updated_at as string);
    expect(titlesOf((await list(`?updated_before=${alphaUpdated}`)).body)).not.toContain('Alpha Safety');
    expect(titlesOf((await list(`?updated_after=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).body)).toHaveLength(5);
    expect(titlesOf((await list(`?with_deleted=true&deleted_after=${encodeURIComponent('2000-01-01T00:00:00+02:00')}`)).body)).toEqual(['Echo archived']);
    expect(titlesOf((await list(`?with_deleted=true&deleted_before=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).body)).toEqual([]);
    // A bound on the deletion time alone asks for deleted courses: only they have one.
    const since = (await list(`?deleted_after=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).body.course_templates as Course[];
    expect(since.map((x) => [x.title, typeof x.deleted_at])).toEqual([['Echo archived', 'string']]);
    for (const bad of ['yesterday', '2025-13-01T00:00:00Z', '2025-01-01', '0000-01-01T00:00:00Z']) expect((await f.admin.get(`${COURSES}?created_after=${bad}`)).status).toBe(400);
    // The ends of the years 0001 to 9999: "after the last instant" compares with a time past 9999.
    expect(titlesOf((await list(`?created_after=${encodeURIComponent('9999-12-31T23:59:59.999Z')}`)).body)).toEqual([]);
    expect(titlesOf((await list('?created_after=0001-01-01T00:00:00Z')).body)).toHaveLength(5);
  });

  it('pages with Link and X-Total-Count, and answers 304 to a matching ETag', async () => {
    const first = await list('?per_page=2&sort=title');
    expect(titlesOf(first.body)).toEqual(['Alpha Safety', 'bravo scorm']);
    expect(first.headers.get('x-total-count')).toBe('5');
    expect(first.headers.get('link')).toContain('rel="next"');
    expect(titlesOf((await list('?per_page=2&page=3&sort=title')).body)).toEqual(['foxtrot']);
    const etag = first.headers.get('etag') as string;
    expect((await f.admin.get(`${COURSES}?per_page=2&sort=title`, { 'if-none-match': etag })).status).toBe(304);
  });

  it('answers titles as {id, title} with the same sort, filters and search', async () => {
    const res = await list('/titles?sort=title&filters[]=has_certificate&search=a');
    expect(res.body.course_templates).toEqual([
      { id: c.alpha.id, title: 'Alpha Safety' },
      { id: c.delta.id, title: 'Delta safety' },
    ]);
    expect((await f.admin.get(`${COURSES}/titles?sort=archived`)).status).toBe(400);
    expect((await f.admin.get(`${COURSES}/titles?includes[]=counts`)).status).toBe(400);
  });

  it('shows nothing of another account', async () => {
    expect((await list('', f.stranger)).body.course_templates).toEqual([]);
    expect((await list('/titles', f.stranger)).body.course_templates).toEqual([]);
  });
});
