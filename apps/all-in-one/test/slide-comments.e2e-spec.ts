import { holdingLock, queryDatabase } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

describe('slide comments, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-slide-comments');
  });
  afterAll(async () => {
    await f?.close();
  });

  /** The author's published course: slide `open` takes comments, `closed` does not; `draft` is added after publishing. */
  async function setUp() {
    const course = await f.createCourse({ title: 'Commented' }, f.author);
    const add = async (title: string, allow: boolean | null) => {
      const res = await f.author.post(`${COURSES}/${course.id}/slides`, { slides: [{ draft_attributes: { title, allow_comments: allow } }] });
      if (res.status !== 201) throw new Error(`slide: ${res.status} ${res.text}`);
      return res.body.slides[0].id as number;
    };
    const open = await add('Open', true);
    const closed = await add('Closed', false);
    const unset = await add('Unset', null);
    expect((await f.author.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    const draft = await add('Draft', true);
    const [ann, bob, outsider] = [await f.newLearner({ firstName: 'Ann', lastName: 'Archer' }), await f.newLearner(), await f.newLearner()];
    await f.enroll(course.id, [{ user_id: ann.userId }, { user_id: bob.userId }]);
    const path = (slide: number, rest = '') => `/api/learner/courses/${course.id}/slides/${slide}/comments${rest}`;
    return { course, open, closed, unset, draft, ann: f.admin.as(ann.token), annUser: ann, bob: f.admin.as(bob.token), outsider: f.admin.as(outsider.token), path };
  }

  it('an enrolled learner comments (201) and every participant reads the comments, oldest first, paged', async () => {
    const s = await setUp();
    const created = await s.ann.post(s.path(s.open), { comment: { body: '  Great slide  ' } });
    expect(created.status).toBe(201);
    const comment = created.body.comments[0];
    expect(comment).toEqual({
      id: expect.any(Number), course_id: Number(s.course.id), slide_id: s.open, body: 'Great slide', author: { id: s.annUser.userId, name: 'Ann Archer', avatar_url: null },
      upvotes_count: 0, upvoted: false, created_at: expect.any(String), updated_at: expect.any(String),
    });
    expect((await f.author.post(s.path(s.open), { comment: { body: 'Thanks!' } })).status).toBe(201);
    const listed = await s.bob.get(s.path(s.open));
    expect(listed.status).toBe(200);
    expect(listed.body.comments.map((c: { body: string }) => c.body)).toEqual(['Great slide', 'Thanks!']);
    expect(listed.headers.get('x-total-count')).toBe('2');
    expect((await s.bob.get(`${s.path(s.open)}?per_page=1&page=2`)).body.comments.map((c: { body: string }) => c.body)).toEqual(['Thanks!']);
    expect((await f.admin.get(s.path(s.open, `/${comment.id}`))).body.comments[0]).toEqual(comment);
  });

  it('learners not enrolled, other authors, other accounts and unknown or unpublished slides get 404, and nothing is written', async () => {
    const s = await setUp();
    const comment = (await s.ann.post(s.path(s.open), { comment: { body: 'Mine' } })).body.comments[0];
    for (const [label, client] of [['outsider', s.outsider], ['other author', f.otherAuthor], ['other account', f.stranger]] as const) {
      for (const res of [
        await client.get(s.path(s.open)),
        await client.post(s.path(s.open), { comment: { body: 'x' } }),
        await client.get(s.path(s.open, `/${comment.id}`)),
        await client.patch(s.path(s.open, `/${comment.id}`), { comment: { body: 'x' } }),
        await client.delete(s.path(s.open, `/${comment.id}`)),
        await client.post(s.path(s.open, `/${comment.id}/rate`)),
      ]) {
        expect([label, res.status]).toEqual([label, 404]);
      }
    }
    // A draft slide is the authors' only; an unknown slide or comment is a 404.
    expect((await s.ann.get(s.path(s.draft))).status).toBe(404);
    expect((await f.author.post(s.path(s.draft), { comment: { body: 'note to self' } })).status).toBe(201);
    expect((await s.ann.get(s.path(999999))).status).toBe(404);
    expect((await s.ann.get(s.path(s.open, '/999999'))).status).toBe(404);
    expect((await s.ann.get(`/api/learner/courses/999999/slides/${s.open}/comments`)).status).toBe(404);
    expect((await s.ann.get(s.path(s.open))).body.comments.map((c: { body: string }) => c.body)).toEqual(['Mine']);
  });

  it("keeps a slide's comments while its deletion is a draft, and lets them go, votes too, with the slide once it is published away", async () => {
    const s = await setUp();
    const comment = (await s.ann.post(s.path(s.open), { comment: { body: 'On a slide about to go' } })).body.comments[0];
    expect((await s.bob.post(s.path(s.open, `/${comment.id}/rate`))).status).toBe(200);
    const stored = async () =>
      (await queryDatabase<{ comments: number; votes: number }>(f.t.db.url, 'SELECT (SELECT count(*)::int FROM catalog.slide_comments WHERE slide_id = $1) AS comments, (SELECT count(*)::int FROM catalog.slide_comment_votes WHERE comment_id = $2) AS votes', [s.open, comment.id]))[0];
    expect((await f.author.delete(`${COURSES}/${s.course.id}/slides/${s.open}`)).status).toBe(204);
    // Learners are still served the slide until the removal is published, and its comments with it (until
    // 2026-11-29 the comments were a 404 meanwhile); its course's authors keep reaching them too.
    expect((await s.bob.get(`/api/learner/courses/${s.course.id}/slides/${s.open}`)).status).toBe(200);
    const listed = await s.bob.get(s.path(s.open));
    expect([listed.status, listed.body.comments?.map((c: { body: string }) => c.body)]).toEqual([200, ['On a slide about to go']]);
    expect((await s.bob.post(s.path(s.open), { comment: { body: 'Still here' } })).status).toBe(201);
    expect((await f.author.get(s.path(s.open, `/${comment.id}`))).status).toBe(200);
    expect(await stored()).toEqual({ comments: 2, votes: 1 });
    expect((await f.author.post(`${COURSES}/${s.course.id}/publish`, {})).status).toBe(200);
    // They went with the slide; until 2026-11-29 they stayed behind, pointing at no slide.
    expect((await s.bob.get(`/api/learner/courses/${s.course.id}/slides/${s.open}`)).status).toBe(404);
    expect((await s.bob.get(s.path(s.open))).status).toBe(404);
    expect(await stored()).toEqual({ comments: 0, votes: 0 });
  });

  it("shows a course's comments to learners only while they are served its slides: not once it is unpublished or archived", async () => {
    const s = await setUp();
    expect((await s.ann.post(s.path(s.open), { comment: { body: 'Before' } })).status).toBe(201);
    expect((await f.author.patch(`${COURSES}/${s.course.id}`, { course_template: { is_published: false } })).status).toBe(200);
    expect((await s.ann.get(`/api/learner/courses/${s.course.id}/slides/${s.open}`)).status).toBe(404);
    expect((await s.ann.get(s.path(s.open))).status).toBe(404);
    expect((await f.author.get(s.path(s.open))).body.comments.map((c: { body: string }) => c.body)).toEqual(['Before']);
    expect((await f.author.patch(`${COURSES}/${s.course.id}`, { course_template: { is_published: true } })).status).toBe(200);
    expect((await s.ann.get(s.path(s.open))).status).toBe(200);
    expect((await f.author.delete(`${COURSES}/${s.course.id}`)).status).toBe(204);
    expect((await s.ann.get(`/api/learner/courses/${s.course.id}/slides/${s.open}`)).status).toBe(404);
    expect((await s.ann.get(s.path(s.open))).status).toBe(404);
  });

  it('refuses writes (403) where the slide does not allow comments', async () => {
    const s = await setUp();
    for (const slide of [s.closed, s.unset]) {
      const res = await s.ann.post(s.path(slide), { comment: { body: 'Hello' } });
      expect([res.status, res.body.code]).toEqual([403, 'COMMENTS_DISABLED']);
      expect((await f.author.post(s.path(slide), { comment: { body: 'Hello' } })).status).toBe(403);
      expect((await s.ann.get(s.path(slide))).body.comments).toEqual([]);
    }
  });

  it("edits only the caller's own comment (PATCH and PUT); deletes their own, and the course's authors delete any", async () => {
    const s = await setUp();
    const mine = (await s.ann.post(s.path(s.open), { comment: { body: 'First' } })).body.comments[0];
    const patched = await s.ann.patch(s.path(s.open, `/${mine.id}`), { comment: { body: 'Edited' } });
    expect([patched.status, patched.body.comments[0].body]).toEqual([200, 'Edited']);
    expect((await s.ann.put(s.path(s.open, `/${mine.id}`), { comment: { body: 'Put' } })).body.comments[0].body).toBe('Put');
    // Another user's comment is not theirs to change: 404, as for any record not the caller's (design §10).
    const theirs = await s.bob.patch(s.path(s.open, `/${mine.id}`), { comment: { body: 'Hijack' } });
    expect([theirs.status, theirs.body.code]).toEqual([404, 'COMMENT_NOT_FOUND']);
    expect((await s.bob.put(s.path(s.open, `/${mine.id}`), { comment: { body: 'Hijack' } })).status).toBe(404);
    expect((await f.author.patch(s.path(s.open, `/${mine.id}`), { comment: { body: 'Author edit' } })).status).toBe(404);
    for (const body of [{ comment: { body: '   ' } }, { comment: { body: 'x', extra: 1 } }, { comment: {} }, { body: 'x' }, { comment: { body: 'x'.repeat(10_001) } }]) {
      expect((await s.ann.patch(s.path(s.open, `/${mine.id}`), body)).status).toBe(400);
    }
    expect((await s.bob.delete(s.path(s.open, `/${mine.id}`))).status).toBe(404);
    expect((await s.ann.get(s.path(s.open, `/${mine.id}`))).body.comments[0].body).toBe('Put');
    expect((await s.ann.delete(s.path(s.open, `/${mine.id}`))).status).toBe(204);
    expect((await s.ann.get(s.path(s.open, `/${mine.id}`))).status).toBe(404);

    const bobs = (await s.bob.post(s.path(s.open), { comment: { body: 'Off topic' } })).body.comments[0];
    expect((await f.author.delete(s.path(s.open, `/${bobs.id}`))).status).toBe(204);
    const another = (await s.bob.post(s.path(s.open), { comment: { body: 'Again' } })).body.comments[0];
    expect((await f.admin.delete(s.path(s.open, `/${another.id}`))).status).toBe(204);
    expect((await s.bob.get(s.path(s.open))).body.comments).toEqual([]);
  });

  it('counts one upvote per user, also under concurrent upvotes', async () => {
    const s = await setUp();
    const comment = (await s.ann.post(s.path(s.open), { comment: { body: 'Vote me' } })).body.comments[0];
    const rate = s.path(s.open, `/${comment.id}/rate`);
    const first = await s.bob.post(rate);
    expect([first.status, first.body.comments[0].upvotes_count, first.body.comments[0].upvoted]).toEqual([200, 1, true]);
    expect((await s.bob.post(rate)).body.comments[0].upvotes_count).toBe(1);
    const results = await Promise.all(Array.from({ length: 10 }, () => s.ann.post(rate)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await f.author.post(rate)).body.comments[0].upvotes_count).toBe(3);
    const seen = (await s.bob.get(s.path(s.open, `/${comment.id}`))).body.comments[0];
    expect([seen.upvotes_count, seen.upvoted]).toEqual([3, true]);
    expect((await s.bob.post(s.path(s.open, '/999999/rate'))).status).toBe(404);
  });

  it('keeps every upvote counted while the comment is edited at the same time', async () => {
    const s = await setUp();
    const comment = (await s.ann.post(s.path(s.open), { comment: { body: 'Draft' } })).body.comments[0];
    const voters = await Promise.all(Array.from({ length: 16 }, () => f.newLearner()));
    await f.enroll(s.course.id, voters.map((v) => ({ user_id: v.userId })));
    const answers = await Promise.all([
      ...voters.map((v) => f.admin.as(v.token).post(s.path(s.open, `/${comment.id}/rate`))),
      ...Array.from({ length: 8 }, (_, i) => s.ann.patch(s.path(s.open, `/${comment.id}`), { comment: { body: `Edit ${i}` } })),
    ]);
    expect(answers.map((r) => r.status).filter((status) => status !== 200)).toEqual([]);
    const seen = (await s.ann.get(s.path(s.open, `/${comment.id}`))).body.comments[0];
    expect(seen.upvotes_count).toBe(voters.length);
    expect(seen.body).toMatch(/^Edit \d$/);
  });

  it('answers a comment on a slide, and a vote on a comment, that went meanwhile with the 404 of a later request, not a 409', async () => {
    const s = await setUp();
    const comment = (await s.ann.post(s.path(s.open), { comment: { body: 'Voted on while it goes' } })).body.comments[0];
    // The test's transaction deletes the row (a publish deleting the slide, its comments going with it); the
    // request has looked already, and its insert waits on that row's lock, then finds it gone.
    const meanwhile = (sql: string, id: number, request: () => Promise<{ status: number; body: { code?: string } }>) =>
      holdingLock(f.t.db.url, sql, [id], async (held) => {
        const answer = request();
        await held.waiters(1);
        await held.release('commit');
        const { status, body } = await answer;
        return [status, body.code];
      });
    expect(await meanwhile('DELETE FROM catalog.slide_comments WHERE id = $1', comment.id, () => s.bob.post(s.path(s.open, `/${comment.id}/rate`)))).toEqual([404, 'COMMENT_NOT_FOUND']);
    expect(await meanwhile('DELETE FROM catalog.slides WHERE id = $1', s.open, () => s.bob.post(s.path(s.open), { comment: { body: 'Too late' } }))).toEqual([404, 'SLIDE_NOT_FOUND']);
  });

  it('answers votes on a comment deleted at the same moment 200 or 404, never a 409 or a 500', async () => {
    const s = await setUp();
    const voters = await Promise.all(Array.from({ length: 12 }, () => f.newLearner()));
    await f.enroll(s.course.id, voters.map((v) => ({ user_id: v.userId })));
    const statuses = new Set<number>();
    for (let round = 0; round < 8; round++) {
      const comment = (await s.ann.post(s.path(s.open), { comment: { body: `Doomed ${round}` } })).body.comments[0];
      const rate = (v: { token: string }) => f.admin.as(v.token).post(s.path(s.open, `/${comment.id}/rate`));
      const [deleted, ...votes] = await Promise.all([s.ann.delete(s.path(s.open, `/${comment.id}`)), ...voters.map(rate)]);
      expect(deleted.status).toBe(204);
      for (const vote of votes) statuses.add(vote.status);
      expect((await s.ann.get(s.path(s.open, `/${comment.id}`))).status).toBe(404);
    }
    expect([...statuses].filter((status) => ![200, 404].includes(status))).toEqual([]);
  });
});
