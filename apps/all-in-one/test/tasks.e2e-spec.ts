import { queryDatabase } from '@lms/testing';
import { type CatalogFixture, startCatalogFixture, TASKS } from './catalog-fixture.js';

describe('tasks (checkpoints), end to end', () => {
  let f: CatalogFixture;
  const createTask = async (fields: Record<string, unknown> = {}, api = f.author) => {
    const res = await api.post(TASKS, { tasks: [{ title: 'Shadow a shift', ...fields }] });
    expect(res.status).toBe(201);
    return res.body.tasks[0];
  };

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-tasks');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates a task (201) with every field of the spec', async () => {
    const res = await f.author.post(TASKS, {
      tasks: [{
        title: 'Shadow a shift', instructions: 'Follow a senior', description: 'One day', structured_body: '{"blocks":[]}', requires_approval: true,
        requires_evidence: true, blocks_progress: true, has_certificate: true, default_approver_type: 'user', default_approver_id: f.otherAuthorUser.userId,
        due_date_type: 'relative', default_days_until_due: 10, attachments: [{ url: 'https://x.test/f.pdf' }],
      }],
    });
    expect(res.status).toBe(201);
    const task = res.body.tasks[0];
    expect(task).toEqual({
      id: expect.stringMatching(/^\d+$/),
      title: 'Shadow a shift',
      author_id: String(f.cast.author.userId),
      instructions: 'Follow a senior',
      description: 'One day',
      has_unpublished_changes: true,
      structured_body: '{"blocks":[]}',
      is_published: false,
      enrollments_count: 0,
      enrollment_counts: { all: 0, overdue: 0, incomplete: 0, finished: 0 },
      has_certificate: true,
      requires_approval: true,
      blocks_progress: true,
      updated_at: expect.any(String),
      attachments_count: 1,
      requires_evidence: true,
      author: { id: String(f.cast.author.userId), uid: f.cast.author.uid, name: expect.any(String), email: `${f.cast.author.uid}@example.test`, avatar_url: null },
      sub_account: { id: expect.any(String), name: 'default', is_root: true, not_current: false, sub_accounts_exist: false },
      default_approver_type: 'user',
      default_approver_id: String(f.otherAuthorUser.userId),
      default_approver: expect.objectContaining({ id: String(f.otherAuthorUser.userId), uid: f.otherAuthorUser.uid }),
      due_date_type: 'relative',
      default_due_on_date: null,
      default_days_until_due: 10,
      attachments: [{ url: 'https://x.test/f.pdf' }],
    });
    await f.eventOf('catalog.task.created', (d) => d.id === Number(task.id));
  });

  it('lists (paged, searchable) and shows tasks; 304 on a matching ETag', async () => {
    const task = await createTask({ title: 'Findable checkpoint' });
    const list = await f.author.get(`${TASKS}?search=FINDABLE`);
    expect(list.status).toBe(200);
    expect(list.body.tasks.map((t: { id: string }) => t.id)).toEqual([task.id]);
    expect(list.headers.get('x-total-count')).toBe('1');
    const shown = await f.author.get(`${TASKS}/${task.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.tasks[0].title).toBe('Findable checkpoint');
    expect((await f.author.get(`${TASKS}/${task.id}`, { 'if-none-match': shown.headers.get('etag') as string })).status).toBe(304);
  });

  it('updates with PATCH and PUT under `task`; publishing by is_published clears has_unpublished_changes', async () => {
    const task = await createTask();
    const published = await f.author.patch(`${TASKS}/${task.id}`, { task: { is_published: true } });
    expect(published.status).toBe(200);
    expect(published.body.tasks[0]).toMatchObject({ is_published: true, has_unpublished_changes: false });
    const edited = await f.author.put(`${TASKS}/${task.id}`, { task: { title: 'Renamed', default_approver_type: 'manager' } });
    expect(edited.body.tasks[0]).toMatchObject({ title: 'Renamed', is_published: true, has_unpublished_changes: true, default_approver_type: 'manager', default_approver: null });
    await f.eventOf('catalog.task.updated', (d) => d.id === Number(task.id) && d.title === 'Renamed');
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const task = await createTask({ title: 'Unchanged' });
    for (const body of [{ task: { title: '' } }, { task: { title: null } }, { task: { due_date_type: 'whenever' } }, { task: { author_id: 5 } }, { task: { default_approver_type: 'user' } },
      { task: { default_approver_type: 'user', default_approver_id: 999999 } }, { task: { default_approver_id: f.cast.author.userId } }, { tasks: [] }]) {
      expect((await f.author.patch(`${TASKS}/${task.id}`, body)).status).toBe(400);
    }
    expect((await f.author.post(TASKS, { tasks: [{ description: 'no title' }] })).status).toBe(400);
    expect((await f.author.post(TASKS, { tasks: [{ title: 'nul', attachments: [{ name: 'a\u0000' }] }] })).status).toBe(400);
    expect((await f.author.post(TASKS, { tasks: [{ title: 'x', default_approver_type: 'user', default_approver_id: f.cast.stranger.userId }] })).status).toBe(400);
    expect((await f.author.get(`${TASKS}/${task.id}`)).body.tasks[0].title).toBe('Unchanged');
  });

  it('judges an approver change against the task as it is when written: two racing changes never leave a user approver without a user', async () => {
    for (let round = 0; round < 8; round++) {
      const task = await createTask({ default_approver_type: 'user', default_approver_id: f.otherAuthorUser.userId });
      // Alone, the second is a 400 after the first (a user approver needs its id); together, one of them must be.
      const answers = await Promise.all([
        f.author.patch(`${TASKS}/${task.id}`, { task: { default_approver_type: 'manager' } }),
        f.author.patch(`${TASKS}/${task.id}`, { task: { default_approver_type: 'user' } }),
      ]);
      expect([[200, 200], [200, 400]]).toContainEqual(answers.map((res) => res.status).sort());
      const shown = (await f.author.get(`${TASKS}/${task.id}`)).body.tasks[0];
      expect(shown.default_approver_type === 'user' ? shown.default_approver_id : 'not a user approver').not.toBeNull();
    }
  });

  it('deletes a task (204); it is then 404 everywhere', async () => {
    const task = await createTask();
    expect((await f.author.delete(`${TASKS}/${task.id}`)).status).toBe(204);
    expect((await f.author.get(`${TASKS}/${task.id}`)).status).toBe(404);
    expect((await f.author.patch(`${TASKS}/${task.id}`, { task: { title: 'x' } })).status).toBe(404);
    expect((await f.author.delete(`${TASKS}/${task.id}`)).status).toBe(404);
    expect((await f.author.post(`${TASKS}/${task.id}/clone`)).status).toBe(404);
    await f.eventOf('catalog.task.deleted', (d) => d.id === Number(task.id));
  });

  it('clones a task (200): a new id, unpublished, no enrollments, the same body and settings, authored by the caller', async () => {
    const source = await createTask({ title: 'Original', instructions: 'Do it', structured_body: 'body', requires_approval: true, default_approver_type: 'manager', is_published: true, default_days_until_due: 3 });
    await queryDatabase(f.t.db.url, `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, state, completed_at) VALUES ($1, 'Task', $2, $3, 'complete', now())`, [
      f.cast.accountId, Number(source.id), f.cast.learner.userId,
    ]);
    expect((await f.author.get(`${TASKS}/${source.id}`)).body.tasks[0].enrollment_counts).toEqual({ all: 1, overdue: 0, incomplete: 0, finished: 1 });
    const res = await f.otherAuthor.post(`${TASKS}/${source.id}/clone`);
    expect(res.status).toBe(200);
    const copy = res.body.tasks[0];
    expect(copy.id).not.toBe(source.id);
    expect(copy).toMatchObject({
      title: 'Original', instructions: 'Do it', structured_body: 'body', requires_approval: true, default_approver_type: 'manager', default_days_until_due: 3,
      is_published: false, has_unpublished_changes: true, enrollments_count: 0, author_id: String(f.otherAuthorUser.userId),
    });
    await f.eventOf('catalog.task.created', (d) => d.id === Number(copy.id) && d.cloned_from === Number(source.id));
  });

  it('lets its creator and administrators change it, other authors read it (403 on writes); another account sees 404', async () => {
    const task = await createTask();
    const refused = await f.otherAuthor.patch(`${TASKS}/${task.id}`, { task: { title: 'x' } });
    expect([refused.status, refused.body.code]).toEqual([403, 'NOT_AN_AUTHOR']);
    expect((await f.otherAuthor.delete(`${TASKS}/${task.id}`)).status).toBe(403);
    expect((await f.otherAuthor.get(`${TASKS}/${task.id}`)).status).toBe(200);
    expect((await f.author.patch(`${TASKS}/${task.id}`, { task: { title: 'By its creator' } })).status).toBe(200);
    expect((await f.admin.patch(`${TASKS}/${task.id}`, { task: { title: 'By admin' } })).status).toBe(200);
    expect((await f.stranger.get(`${TASKS}/${task.id}`)).status).toBe(404);
    expect((await f.stranger.patch(`${TASKS}/${task.id}`, { task: { title: 'x' } })).status).toBe(404);
    expect((await f.stranger.delete(`${TASKS}/${task.id}`)).status).toBe(404);
    expect((await f.stranger.post(`${TASKS}/${task.id}/clone`)).status).toBe(404);
    expect((await f.stranger.get(TASKS)).body.tasks).toEqual([]);
    expect((await f.learner.get(TASKS)).status).toBe(403);
    expect((await f.admin.get(`${TASKS}/0`)).status).toBe(400);
  });
});
