import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CatalogFixture, COURSES, startCatalogFixture } from './catalog-fixture.js';

const MARKETS = '/api/author/markets';
// The operator's loader, from the build `npm test` makes first.
const LOADER = 'dist/apps/catalog/markets/load-markets.js';

describe('content markets, end to end', () => {
  let f: CatalogFixture;
  let dir: string;

  /** Runs the operator's loader on a catalogue file against the system's database. */
  const load = (catalogue: unknown) => {
    const file = join(dir, `catalogue-${Math.random().toString(16).slice(2)}.json`);
    writeFileSync(file, typeof catalogue === 'string' ? catalogue : JSON.stringify(catalogue));
    return spawnSync(process.execPath, [LOADER, file], { env: { ...process.env, DATABASE_URL: f.t.db.url }, encoding: 'utf8' });
  };
  const item = (id: string, title: string, extra: Record<string, unknown> = {}) => ({ id, title, description: `About ${title}`, estimated_time: 30, language: 'en', thumbnail_url: null, ...extra });

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-markets');
    dir = mkdtempSync(join(tmpdir(), 'markets-'));
    expect(existsSync(LOADER)).toBe(true);
    const loaded = load({
      markets: [
        {
          id: 'third_party_a', name: 'Library A', description: 'Skills',
          items: [item('a-3', 'Cyber basics'), item('a-1', 'Advanced Excel', { thumbnail_url: 'https://a.test/x.png', launch_url: 'https://a.test/play/a-1?from=lms' }), item('a-2', 'budgeting 101%'), item('a/4 x', 'Zeta with a slash')],
        },
        // Only the other account sees this one.
        { id: 'third_party_b', name: 'Library B', account_ids: [f.cast.stranger.accountId], items: [item('b-1', 'Safety first')] },
      ],
    });
    expect([loaded.status, loaded.stderr]).toEqual([0, '']);
    expect(loaded.stdout).toBe('third_party_a: 4 items loaded\nthird_party_b: 1 items loaded\n');
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it('lists the markets available to the account, with item counts and the path of their items', async () => {
    const res = await f.author.get(MARKETS);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      meta: {},
      markets: [{ id: 'third_party_a', name: 'Library A', description: 'Skills', course_type: 'third_party_a', items_count: 4, links: { items: `${MARKETS}/third_party_a/items` } }],
    });
    const other = await f.stranger.get(MARKETS);
    expect(other.body.markets.map((m: { id: string; items_count: number }) => [m.id, m.items_count])).toEqual([['third_party_a', 4], ['third_party_b', 1]]);
  });

  it("pages a market's items by title, searchable, each saying whether the account has added it", async () => {
    const res = await f.author.get(`${MARKETS}/third_party_a/items`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('4');
    expect(res.body.items.map((i: { id: string }) => i.id)).toEqual(['a-1', 'a-2', 'a-3', 'a/4 x']);
    expect(res.body.items[0]).toEqual({
      id: 'a-1', market_id: 'third_party_a', title: 'Advanced Excel', description: 'About Advanced Excel', estimated_time: 30, language: 'en',
      thumbnail_url: 'https://a.test/x.png', course_template_id: null,
    });
    const page = await f.author.get(`${MARKETS}/third_party_a/items?per_page=2&page=2`);
    expect(page.body.items.map((i: { id: string }) => i.id)).toEqual(['a-3', 'a/4 x']);
    expect(page.headers.get('link')).toContain('rel="prev"');
    expect((await f.author.get(`${MARKETS}/third_party_a/items?search=${encodeURIComponent('101%')}`)).body.items.map((i: { id: string }) => i.id)).toEqual(['a-2']);
    expect((await f.author.get(`${MARKETS}/third_party_a/items?search=EXCEL`)).body.items.map((i: { id: string }) => i.id)).toEqual(['a-1']);
  });

  it('adds an item as an unpublished course template of the market type with its third_party_course_id (201); again answers that course (200)', async () => {
    const res = await f.author.post(`${MARKETS}/third_party_a/items/a-1/add`);
    expect(res.status).toBe(201);
    const course = res.body.course_templates[0];
    expect(course).toMatchObject({
      title: 'Advanced Excel', description: 'About Advanced Excel', course_type: 'third_party_a', third_party_course_id: 'a-1', is_published: false,
      has_unpublished_changes: true, external_status: 'pending', default_days_until_due: 0, program_ids: [], links: { author: `/api/admin/users/${f.cast.author.userId}` },
    });
    await f.eventOf('catalog.course_template.created', (d) => d.id === Number(course.id) && d.course_type === 'third_party_a');
    expect((await f.author.get(`${COURSES}/${course.id}`)).body.course_templates[0].third_party_course_id).toBe('a-1');
    const listed = await f.author.get(`${MARKETS}/third_party_a/items?search=excel`);
    expect(listed.body.items[0].course_template_id).toBe(course.id);
    const again = await f.otherAuthor.post(`${MARKETS}/third_party_a/items/a-1/add`);
    expect(again.status).toBe(200);
    expect(again.body.course_templates.map((c: { id: string }) => c.id)).toEqual([course.id]);
    expect((await f.author.get(`${COURSES}?filters[]=third_party_a`)).body.course_templates.filter((c: { title: string }) => c.title === 'Advanced Excel')).toHaveLength(1);
    // An archived course no longer counts: adding makes a new one.
    expect((await f.author.delete(`${COURSES}/${course.id}`)).status).toBe(204);
    expect((await f.author.get(`${MARKETS}/third_party_a/items?search=excel`)).body.items[0].course_template_id).toBeNull();
    const fresh = await f.author.post(`${MARKETS}/third_party_a/items/a-1/add`);
    expect(fresh.status).toBe(201);
    expect(fresh.body.course_templates[0].id).not.toBe(course.id);
  });

  it("plays a third-party course at its vendor: launch_url answers its market item's URL, the learner's own only; no URL is a 400", async () => {
    const learner = f.admin.as(f.cast.learner.token);
    const enrolled = async (itemId: string) => {
      const course = (await f.author.post(`${MARKETS}/third_party_a/items/${itemId}/add`)).body.course_templates[0];
      expect((await f.author.post(`${COURSES}/${course.id}/publish`)).status).toBe(200);
      const res = await f.admin.post(`${COURSES}/${course.id}/enrollments`, { enrollments: [{ user_id: f.cast.learner.userId }] });
      expect(res.status).toBe(201);
      return res.body.enrollments[0].id as number;
    };
    const playable = await enrolled('a-1');
    for (const res of [await learner.get(`/api/learner/courses/${playable}/launch_url`), await learner.post(`/api/learner/courses/${playable}/launch_url`, {})]) {
      expect([res.status, res.body]).toEqual([200, { url: 'https://a.test/play/a-1?from=lms', player_launch_type: 'new_window' }]);
    }
    expect((await f.otherAuthor.get(`/api/learner/courses/${playable}/launch_url`)).status).toBe(404);
    // The mobile redirect stays the SCORM player's.
    expect((await learner.get(`/api/learner/courses/${playable}/mobile_scorm_launch_url`)).body.code).toBe('NOT_A_SCORM_ENROLLMENT');
    const noUrl = await learner.get(`/api/learner/courses/${await enrolled('a-3')}/launch_url`);
    expect([noUrl.status, noUrl.body.code]).toEqual([400, 'NO_LAUNCH_URL']);
  });

  it('launches a third-party course as last published: a draft change of its course type reaches no learner', async () => {
    const course = (await f.author.post(`${MARKETS}/third_party_a/items/a-1/add`)).body.course_templates[0];
    expect((await f.author.post(`${COURSES}/${course.id}/publish`)).status).toBe(200);
    const user = await f.t.factory.user(f.cast.accountId, ['learner']);
    const enrolled = await f.admin.post(`${COURSES}/${course.id}/enrollments`, { enrollments: [{ user_id: user.userId }] });
    expect(enrolled.status).toBe(201);
    const enrollment = enrolled.body.enrollments[0].id as number;
    expect((await f.author.patch(`${COURSES}/${course.id}`, { course_template: { course_type: 'native' } })).status).toBe(200);
    const learner = f.admin.as(user.token);
    expect((await learner.get(`/api/learner/courses/${enrollment}`)).body.courses[0].course_type).toBe('third_party_a');
    const res = await learner.get(`/api/learner/courses/${enrollment}/launch_url`);
    expect([res.status, res.body]).toEqual([200, { url: 'https://a.test/play/a-1?from=lms', player_launch_type: 'new_window' }]);
    // The draft goes back: the item's course stays the market's for the specs after this one.
    expect((await f.author.patch(`${COURSES}/${course.id}`, { course_template: { course_type: 'third_party_a' } })).status).toBe(200);
  });

  it('makes one course when the same item is added concurrently', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => f.author.post(`${MARKETS}/third_party_a/items/a-2/add`)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((r) => r.body.course_templates[0].id)).size).toBe(1);
  });

  it('takes item ids as the market spells them (URL-encoded in the path)', async () => {
    const res = await f.author.post(`${MARKETS}/third_party_a/items/${encodeURIComponent('a/4 x')}/add`);
    expect(res.status).toBe(201);
    expect(res.body.course_templates[0].third_party_course_id).toBe('a/4 x');
  });

  it('answers 404 for an unknown market or item and for a market the account does not have; 400 for a malformed market id', async () => {
    expect((await f.author.get(`${MARKETS}/third_party_b/items`)).status).toBe(404);
    expect((await f.author.post(`${MARKETS}/third_party_b/items/b-1/add`)).status).toBe(404);
    expect((await f.author.get(`${MARKETS}/nothing_here/items`)).status).toBe(404);
    const unknown = await f.author.post(`${MARKETS}/third_party_a/items/no-such/add`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('MARKET_ITEM_NOT_FOUND');
    expect((await f.author.get(`${MARKETS}/Third-Party/items`)).status).toBe(400);
    expect((await f.author.get(`${MARKETS}/third_party_a/items?per_page=0`)).status).toBe(400);
    expect((await f.author.post(`${MARKETS}/third_party_a/items/a-3/add`, { course_type: 'native' })).status).toBe(400);
    // The other account sees its own market and adds to its own account.
    const theirs = await f.stranger.post(`${MARKETS}/third_party_b/items/b-1/add`);
    expect(theirs.status).toBe(201);
    expect((await f.author.get(`${COURSES}/${theirs.body.course_templates[0].id}`)).status).toBe(404);
    // Learners are outside the author audience.
    expect((await f.learner.get(MARKETS)).status).toBe(403);
    expect((await f.learner.post(`${MARKETS}/third_party_a/items/a-3/add`)).status).toBe(403);
  });

  it('the loader refuses a bad catalogue and changes nothing; a good one replaces the market it names', async () => {
    for (const bad of ['{not json', { markets: [{ id: 'third_party_c', name: 'x', items: [] }] }, { markets: [{ id: 'third_party_a', name: 'x', items: [item('d', 'D'), item('d', 'E')] }] },
      { markets: [{ id: 'third_party_a', name: 'x', items: [{ id: 'e', title: '' }] }] }, { markets: [{ id: 'third_party_a', name: 'x', items: [], extra: 1 }] },
      { markets: [{ id: 'third_party_a', name: 'x', items: [item('f', 'F', { launch_url: 'javascript:alert(1)' })] }] }, { markets: [{ id: 'third_party_a', name: 'x', items: [item('g', 'G', { launch_url: '/relative' })] }] }]) {
      const res = load(bad);
      expect([JSON.stringify(bad), res.status]).toEqual([JSON.stringify(bad), 1]);
      expect(res.stderr).toMatch(/^load-markets: /);
    }
    expect((await f.author.get(MARKETS)).body.markets[0]).toMatchObject({ name: 'Library A', items_count: 4 });
    expect(load({ markets: [{ id: 'third_party_a', name: 'Library A2', items: [item('a-9', 'Only one')] }] }).status).toBe(0);
    expect((await f.author.get(MARKETS)).body.markets).toEqual([expect.objectContaining({ id: 'third_party_a', name: 'Library A2', items_count: 1 })]);
    expect((await f.stranger.get(MARKETS)).body.markets.map((m: { id: string }) => m.id)).toEqual(['third_party_a', 'third_party_b']);
    // Courses made from items that left the market stay.
    expect((await f.author.get(`${COURSES}?filters[]=third_party_a&search=Advanced`)).body.course_templates).toHaveLength(1);
  }, 120_000);
});
