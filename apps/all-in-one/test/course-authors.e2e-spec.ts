import { COURSES, type CatalogFixture, startCatalogFixture } from './catalog-fixture.js';

describe('course authors, end to end', () => {
  let f: CatalogFixture;
  const authorsOf = (courseId: string) => `${COURSES}/${courseId}/authors`;
  const add = (courseId: string, userIds: unknown[], api = f.admin) => api.post(authorsOf(courseId), { users: userIds.map((user_id) => ({ user_id })) });
  const authorIds = async (courseId: string) => (await f.admin.get(authorsOf(courseId))).body.authors.map((a: { id: string }) => a.id);

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-course-authors');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('lists the authors, adds one (201 with the added author) and removes one (204)', async () => {
    const course = await f.createCourse({ title: 'Team course' }, f.author);
    const added = await add(course.id, [f.otherAuthorUser.userId], f.author);
    expect(added.status).toBe(201);
    expect(added.body.authors).toEqual([
      { id: String(f.otherAuthorUser.userId), uid: f.otherAuthorUser.uid, name: expect.any(String), email: `${f.otherAuthorUser.uid}@example.test`, avatar_url: null, deleted_at: null, added_at: expect.any(String) },
    ]);
    const list = await f.author.get(authorsOf(course.id));
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.body.authors.map((a: { id: string }) => a.id)).toEqual([String(f.cast.author.userId), String(f.otherAuthorUser.userId)]);
    // The new author may now edit the course.
    expect((await f.otherAuthor.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Shared' } })).status).toBe(200);
    expect((await f.author.delete(`${authorsOf(course.id)}/${f.otherAuthorUser.userId}`)).status).toBe(204);
    expect(await authorIds(course.id)).toEqual([String(f.cast.author.userId)]);
    await f.eventOf('catalog.course_author.added', (d) => d.course_template_id === Number(course.id) && d.user_id === f.otherAuthorUser.userId);
    await f.eventOf('catalog.course_author.removed', (d) => d.course_template_id === Number(course.id) && d.user_id === f.otherAuthorUser.userId);
  });

  it('refuses users who cannot be authors with a 400 and adds nobody', async () => {
    const course = await f.createCourse({ title: 'Picky course' });
    const cases: [unknown[], string][] = [
      [[999999], 'no such user'],
      [[f.cast.learner.userId], 'neither the author nor the admin role'],
      [[f.cast.stranger.userId], 'no such user'],
      [[f.cast.author.userId, f.cast.author.userId], 'author of this course already'],
    ];
    for (const [users, message] of cases) {
      const res = await add(course.id, users);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('COURSE_AUTHOR_INVALID');
      expect(JSON.stringify(res.body.errors)).toContain(message);
    }
    const admins = await f.admin.get(authorsOf(course.id));
    expect(admins.body.authors).toHaveLength(1);
    const already = await add(course.id, [admins.body.authors[0].id]);
    expect(already.status).toBe(400);
    for (const body of [{ users: [] }, { users: [{ user_id: 'x' }] }, { user_ids: [1] }, {}]) expect((await f.admin.post(authorsOf(course.id), body)).status).toBe(400);
    expect(await authorIds(course.id)).toHaveLength(1);
  });

  it('refuses to remove the last author (400) and answers 404 for a user who is not an author', async () => {
    const course = await f.createCourse({ title: 'Solo course' }, f.author);
    const res = await f.author.delete(`${authorsOf(course.id)}/${f.cast.author.userId}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('COURSE_LAST_AUTHOR');
    expect((await f.author.delete(`${authorsOf(course.id)}/${f.otherAuthorUser.userId}`)).status).toBe(404);
  });

  it('refuses adding and removing authors of an archived course (400)', async () => {
    const course = await f.createCourse({ title: 'Archived team' });
    await add(course.id, [f.cast.author.userId]);
    await f.admin.delete(`${COURSES}/${course.id}`);
    const adding = await add(course.id, [f.otherAuthorUser.userId]);
    expect(adding.status).toBe(400);
    expect(adding.body.code).toBe('COURSE_TEMPLATE_ARCHIVED');
    const removing = await f.admin.delete(`${authorsOf(course.id)}/${f.cast.author.userId}`);
    expect(removing.status).toBe(400);
    expect(removing.body.code).toBe('COURSE_TEMPLATE_ARCHIVED');
    expect((await f.admin.get(authorsOf(course.id))).status).toBe(200);
  });

  it('lets the course’s authors change the author list; another author of the account reads it and gets 403', async () => {
    const course = await f.createCourse({ title: 'Closed team' }, f.author);
    const refused = await add(course.id, [f.otherAuthorUser.userId], f.otherAuthor);
    expect([refused.status, refused.body.code]).toEqual([403, 'NOT_AN_AUTHOR']);
    expect((await f.otherAuthor.delete(`${authorsOf(course.id)}/${f.cast.author.userId}`)).status).toBe(403);
    expect((await f.otherAuthor.get(authorsOf(course.id))).status).toBe(200);
    expect((await add(course.id, [f.otherAuthorUser.userId], f.author)).status).toBe(201);
    expect((await f.otherAuthor.delete(`${authorsOf(course.id)}/${f.cast.author.userId}`)).status).toBe(204);
  });

  it('answers 404 for another account’s course and a learner 403', async () => {
    const course = await f.createCourse({ title: 'Private team' });
    expect((await f.stranger.get(authorsOf(course.id))).status).toBe(404);
    expect((await add(course.id, [f.cast.stranger.userId], f.stranger)).status).toBe(404);
    expect((await f.stranger.delete(`${authorsOf(course.id)}/${f.cast.author.userId}`)).status).toBe(404);
    expect((await f.learner.get(authorsOf(course.id))).status).toBe(403);
    expect((await f.admin.get(authorsOf('999999'))).status).toBe(404);
  });

  it('keeps a deleted user’s courses: links.author still points at them, and they stay an author under the last-author rule', async () => {
    const doomed = await f.t.factory.user(f.cast.accountId, ['author']);
    const course = await f.createCourse({ title: 'Orphan-to-be' }, f.admin.as(doomed.token));
    expect((await f.admin.delete(`/api/admin/users/${doomed.userId}`)).status).toBe(204);
    const shown = await f.admin.get(`${COURSES}/${course.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.course_templates[0].links.author).toBe(`/api/admin/users/${doomed.userId}`);
    const authors = (await f.admin.get(authorsOf(course.id))).body.authors;
    expect(authors).toEqual([expect.objectContaining({ id: String(doomed.userId), deleted_at: expect.any(String) })]);
    expect((await f.admin.delete(`${authorsOf(course.id)}/${doomed.userId}`)).status).toBe(400);
    // A deleted user cannot be added anywhere, but an administrator can take the course over.
    const other = await f.createCourse({ title: 'Elsewhere' });
    expect((await add(other.id, [doomed.userId])).status).toBe(400);
    expect((await add(course.id, [f.cast.author.userId])).status).toBe(201);
    expect((await f.admin.delete(`${authorsOf(course.id)}/${doomed.userId}`)).status).toBe(204);
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].links.author).toBe(`/api/admin/users/${doomed.userId}`);
  });
});
