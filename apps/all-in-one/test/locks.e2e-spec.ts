import type { CloudEvent, LockEventData } from '@lms/contracts';
import type { Subscription } from '@lms/platform';
import { type ApiClient, type ApiResponse, eventually, type HeldLock, holdingLock, type TestUser } from '@lms/testing';
import { type CatalogFixture, COURSES, courseRequest, startCatalogFixture, TASKS } from './catalog-fixture.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OTHER_UUID = '00000000-0000-4000-8000-000000000000';
const USERS = '/api/admin/users';

const courseLock = (id: string) => `${COURSES}/${id}/lock`;
const taskLock = (id: string) => `${TASKS}/${id}/lock`;
const lockHeader = (lockId: string) => ({ 'x-lock-id': lockId });
const renew = (api: ApiClient, path: string, headers: Record<string, string> = {}) => api.request('PUT', path, undefined, headers);
const release = (api: ApiClient, path: string, headers: Record<string, string> = {}) => api.request('DELETE', path, undefined, headers);
const slide = (title: string) => ({ title, body: `<p>${title}</p>`, type: 'content', allow_comments: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every locking event the system publishes, for the specs to look at. */
async function recordLockEvents(t: TestSystem, durable: string): Promise<{ events: CloudEvent<LockEventData>[]; sub: Subscription }> {
  const events: CloudEvent<LockEventData>[] = [];
  const sub = await t.system.bus.events.consume({ durable, types: ['locking.>'], maxDeliver: 3, backoffMs: [100] }, async (event) => void events.push(event as CloudEvent<LockEventData>));
  return { events, sub };
}

const ofLease = (events: CloudEvent<LockEventData>[], type: string, lockId: string) => events.filter((e) => e.type === `locking.lock.${type}` && e.data.id === lockId);

describe('edit locks on course templates and tasks, end to end', () => {
  let f: CatalogFixture;
  let lockEvents: CloudEvent<LockEventData>[];
  let sub: Subscription;
  /** An administrator of the bootstrap account besides the bootstrap one: may edit everything, holds no lock. */
  let otherAdmin: ApiClient;
  let otherAdminUser: TestUser;

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-locks-catalog');
    ({ events: lockEvents, sub } = await recordLockEvents(f.t, 'e2e-locks'));
    otherAdminUser = await f.t.factory.user(f.cast.accountId, ['admin']);
    otherAdmin = f.admin.as(otherAdminUser.token);
  });
  afterAll(async () => {
    await sub?.unsubscribe();
    await f?.close();
  });

  it('POST takes the lock (200), GET shows it counting down from LOCK_TTL_SECONDS, POST again by the holder answers the same lock', async () => {
    const course = await f.createCourse({ title: 'Lock me' }, f.author);
    const taken = await f.author.post(courseLock(course.id));
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({
      lock: { id: expect.stringMatching(UUID), lockable_id: course.id, lockable_type: 'CourseTemplate', holder_id: String(f.cast.author.userId), updated_at: expect.any(String) },
    });
    expect(Number.isNaN(Date.parse(taken.body.lock.updated_at))).toBe(false);

    const shown = await f.admin.get(courseLock(course.id));
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ lock: { lockable_id: course.id, lockable_type: 'CourseTemplate', holder_id: String(f.cast.author.userId), expires_in: expect.any(Number) } });
    expect(shown.body.lock.expires_in).toBeGreaterThan(890);
    expect(shown.body.lock.expires_in).toBeLessThanOrEqual(900);

    const again = await f.author.post(courseLock(course.id));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(taken.body);

    const acquired = await eventually(async () => (ofLease(lockEvents, 'acquired', taken.body.lock.id).length ? ofLease(lockEvents, 'acquired', taken.body.lock.id) : undefined));
    expect(acquired).toHaveLength(1);
    expect(acquired[0].data).toMatchObject({ lockable_type: 'CourseTemplate', lockable_id: Number(course.id), holder_id: f.cast.author.userId, fencing_token: 1 });
  });

  it('POST by someone else while it is held is a 409 naming the holder and expires_in', async () => {
    const course = await f.createCourse({ title: 'Held' }, f.author);
    expect((await f.author.post(courseLock(course.id))).status).toBe(200);
    const refused = await otherAdmin.post(courseLock(course.id));
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ status: 409, code: 'LOCKED', detail: expect.stringContaining(`user ${f.cast.author.userId}`) });
    expect(refused.body.errors).toEqual([
      { field: 'holder_id', message: String(f.cast.author.userId) },
      { field: 'expires_in', message: expect.stringMatching(/^\d+$/) },
    ]);
    expect((await f.admin.get(courseLock(course.id))).body.lock.holder_id).toBe(String(f.cast.author.userId));
  });

  it('PUT with X-Lock-Id renews (204); 422 without it or with a non-UUID; 409 for a lock that is not the live one or not the caller’s', async () => {
    const course = await f.createCourse({ title: 'Renew me' }, f.author);
    const lockId = (await f.author.post(courseLock(course.id))).body.lock.id;
    const path = courseLock(course.id);

    expect((await renew(f.author, path, lockHeader(lockId))).status).toBe(204);
    await eventually(async () => (ofLease(lockEvents, 'renewed', lockId).length === 1 ? true : undefined));
    expect((await f.author.get(path)).body.lock.expires_in).toBeGreaterThan(890);

    const missing = await renew(f.author, path);
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ code: 'LOCK_ID_REQUIRED' });
    expect((await renew(f.author, path, lockHeader('not-a-uuid'))).status).toBe(422);
    const stale = await renew(f.author, path, lockHeader(OTHER_UUID));
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'LOCK_NOT_LIVE' });
    // The right id from someone who is not its holder (an administrator who may edit the course).
    const notHolder = await renew(otherAdmin, path, lockHeader(lockId));
    expect(notHolder.status).toBe(409);
    expect(notHolder.body).toMatchObject({ code: 'LOCKED', detail: expect.stringContaining(`user ${f.cast.author.userId}`) });
  });

  it('DELETE with X-Lock-Id releases (204), the same 422 and 409; released, the item is free and GET is a 404', async () => {
    const course = await f.createCourse({ title: 'Release me' }, f.author);
    const path = courseLock(course.id);
    const lockId = (await f.author.post(path)).body.lock.id;

    expect((await release(f.author, path)).status).toBe(422);
    expect((await release(f.author, path, lockHeader('1234'))).status).toBe(422);
    expect((await release(f.author, path, lockHeader(OTHER_UUID))).status).toBe(409);
    expect((await release(otherAdmin, path, lockHeader(lockId))).status).toBe(409);
    expect((await f.author.get(path)).status).toBe(200);

    expect((await release(f.author, path, lockHeader(lockId))).status).toBe(204);
    const released = await eventually(async () => ofLease(lockEvents, 'released', lockId)[0]);
    expect(released.data).toMatchObject({ reason: 'released', holder_id: f.cast.author.userId });
    const gone = await f.author.get(path);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 'LOCK_NOT_FOUND' });
    // A released lock is not renewed or released again.
    expect((await renew(f.author, path, lockHeader(lockId))).status).toBe(409);
    expect((await release(f.author, path, lockHeader(lockId))).status).toBe(409);

    const next = await otherAdmin.post(path);
    expect(next.status).toBe(200);
    expect(next.body.lock.id).not.toBe(lockId);
    const acquired = await eventually(async () => ofLease(lockEvents, 'acquired', next.body.lock.id)[0]);
    expect(acquired.data.fencing_token).toBe(2);
  });

  it('403 for a caller who may not edit the item, 409 for a co-author while the lock is held, 404 for another account’s item or one that does not exist, on every method', async () => {
    const course = await f.createCourse({ title: 'Not yours' }, f.author);
    const path = courseLock(course.id);
    const lockId = (await f.author.post(path)).body.lock.id;
    // An author of the account who is not an author of this course may not edit it: 403 on every method.
    for (const res of [await f.otherAuthor.get(path), await f.otherAuthor.post(path), await renew(f.otherAuthor, path, lockHeader(lockId)), await release(f.otherAuthor, path, lockHeader(lockId))]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'NOT_AN_AUTHOR' });
    }
    // Made a co-author, they see the lock but neither take, renew nor release it while someone else holds it.
    expect((await f.author.post(`${COURSES}/${course.id}/authors`, { users: [{ user_id: f.otherAuthorUser.userId }] }, lockHeader(lockId))).status).toBe(201);
    expect((await f.otherAuthor.get(path)).status).toBe(200);
    expect((await f.otherAuthor.post(path)).status).toBe(409);
    expect((await renew(f.otherAuthor, path, lockHeader(lockId))).status).toBe(409);
    expect((await release(f.otherAuthor, path, lockHeader(lockId))).status).toBe(409);
    // A learner is outside the author audience: 403.
    expect((await f.learner.post(path)).status).toBe(403);
    // Another account's administrator: the course does not exist for them.
    for (const res of [await f.stranger.get(path), await f.stranger.post(path), await renew(f.stranger, path, lockHeader(lockId)), await release(f.stranger, path, lockHeader(lockId))]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'LOCKABLE_NOT_FOUND' });
    }
    expect((await f.admin.get(courseLock('99999999'))).status).toBe(404);
    expect((await f.admin.post(taskLock('99999999'))).status).toBe(404);
    expect((await f.admin.get(courseLock('abc'))).status).toBe(400);
    // None of that touched the lock.
    expect((await f.admin.get(path)).body.lock.holder_id).toBe(String(f.cast.author.userId));
  });

  it('locks tasks the same way (lockable_type Task)', async () => {
    const task = (await f.author.post(TASKS, { tasks: [{ title: 'Lockable task' }] })).body.tasks[0];
    const path = taskLock(task.id);
    expect((await f.author.get(path)).status).toBe(404);
    const taken = await f.author.post(path);
    expect(taken.status).toBe(200);
    expect(taken.body.lock).toMatchObject({ lockable_id: task.id, lockable_type: 'Task', holder_id: String(f.cast.author.userId) });
    expect((await f.admin.get(path)).body.lock).toMatchObject({ lockable_type: 'Task', expires_in: expect.any(Number) });
    expect((await f.admin.post(path)).status).toBe(409);
    // A task is edited by its creator and administrators: another author may not lock it.
    expect((await f.otherAuthor.post(path)).status).toBe(403);
    expect((await renew(f.author, path, lockHeader(taken.body.lock.id))).status).toBe(204);
    expect((await release(f.author, path, lockHeader(taken.body.lock.id))).status).toBe(204);
    expect((await f.author.get(path)).status).toBe(404);
  });

  it('while held, catalog writes by anyone but the holder are 409 naming the holder; the holder writes at once; unlocked, writes go through', async () => {
    const course = await f.createCourse({ title: 'Fenced' }, f.author);
    const lockId = (await f.author.post(courseLock(course.id))).body.lock.id;

    // The holder's write right after taking the lock goes through, with or without presenting it.
    expect((await f.author.patch(`${COURSES}/${course.id}`, { course_template: { title: 'By the holder' } })).status).toBe(200);
    expect((await f.author.request('PATCH', `${COURSES}/${course.id}`, { course_template: { title: 'Presented' } }, lockHeader(lockId))).status).toBe(200);
    expect((await f.author.post(`${COURSES}/${course.id}/slides`, { slides: [{ draft_attributes: slide('S1') }] })).status).toBe(201);

    const writes: [string, () => Promise<{ status: number; body: Record<string, unknown> }>][] = [
      ['template fields', () => f.admin.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Not the holder' } })],
      ['slides', () => f.admin.post(`${COURSES}/${course.id}/slides`, { slides: [{ draft_attributes: slide('S2') }] })],
      ['authors', () => f.admin.post(`${COURSES}/${course.id}/authors`, { users: [{ user_id: f.otherAuthorUser.userId }] })],
      ['publish', () => f.admin.post(`${COURSES}/${course.id}/publish`, {})],
      ['archive', () => f.admin.delete(`${COURSES}/${course.id}`)],
    ];
    for (const [what, write] of writes) {
      const res = await write();
      expect([what, res.status]).toEqual([what, 409]);
      expect(res.body).toMatchObject({ code: 'LOCKED', detail: expect.stringContaining(`user ${f.cast.author.userId}`) });
    }
    // The holder presenting a lock id that is not the live lock, or a malformed one.
    expect((await f.author.request('PATCH', `${COURSES}/${course.id}`, { course_template: { title: 'x' } }, lockHeader(OTHER_UUID))).status).toBe(409);
    expect((await f.author.request('PATCH', `${COURSES}/${course.id}`, { course_template: { title: 'x' } }, lockHeader('nope'))).status).toBe(422);
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].title).toBe('Presented');

    expect((await release(f.author, courseLock(course.id), lockHeader(lockId))).status).toBe(204);
    // No lock: everyone who may edit writes as before; a write that still presents the old lock is refused.
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Unlocked' } })).status).toBe(200);
    expect((await f.author.request('PATCH', `${COURSES}/${course.id}`, { course_template: { title: 'Stale' } }, lockHeader(lockId))).status).toBe(409);
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].title).toBe('Unlocked');

    const task = (await f.author.post(TASKS, { tasks: [{ title: 'Fenced task' }] })).body.tasks[0];
    expect((await f.author.post(taskLock(task.id))).status).toBe(200);
    const taskWrite = await f.admin.patch(`${TASKS}/${task.id}`, { task: { title: 'Not the holder' } });
    expect(taskWrite.status).toBe(409);
    expect(taskWrite.body).toMatchObject({ code: 'LOCKED' });
    expect((await f.author.patch(`${TASKS}/${task.id}`, { task: { title: 'The holder' } })).status).toBe(200);
  });

  it('gives the lock to exactly one of 100 users asking at once', async () => {
    const course = await f.createCourse({ title: 'Contended' });
    const admins = await Promise.all(Array.from({ length: 100 }, () => f.t.factory.user(f.cast.accountId, ['admin'])));
    const answers = await Promise.all(admins.map((user) => f.admin.as(user.token).post(courseLock(course.id))));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(99);
    const winner = answers.find((res) => res.status === 200)!.body.lock;
    expect((await f.admin.get(courseLock(course.id))).body.lock.holder_id).toBe(winner.holder_id);
    await eventually(async () => (lockEvents.some((e) => e.data.id === winner.id) ? true : undefined));
    expect(lockEvents.filter((e) => e.type === 'locking.lock.acquired' && e.data.lockable_id === Number(course.id))).toHaveLength(1);
  });

  it('deleting a user releases their locks; deleting a course or task releases its lock', async () => {
    const holder = await f.t.factory.user(f.cast.accountId, ['admin']);
    const course = await f.createCourse({ title: 'Holder leaves' });
    const lockId = (await f.admin.as(holder.token).post(courseLock(course.id))).body.lock.id;
    expect((await f.admin.delete(`${USERS}/${holder.userId}`)).status).toBe(204);
    const released = await eventually(async () => ofLease(lockEvents, 'released', lockId)[0]);
    expect(released.data).toMatchObject({ reason: 'holder_deleted', holder_id: holder.userId });
    expect((await f.admin.get(courseLock(course.id))).status).toBe(404);
    expect((await otherAdmin.post(courseLock(course.id))).status).toBe(200);

    const task = (await f.author.post(TASKS, { tasks: [{ title: 'Short-lived task' }] })).body.tasks[0];
    const taskLockId = (await f.author.post(taskLock(task.id))).body.lock.id;
    expect((await f.author.delete(`${TASKS}/${task.id}`)).status).toBe(204);
    expect((await eventually(async () => ofLease(lockEvents, 'released', taskLockId)[0])).data).toMatchObject({ reason: 'item_deleted' });

    const archived = await f.createCourse({ title: 'Archived while locked' }, f.author);
    const archivedLockId = (await f.author.post(courseLock(archived.id))).body.lock.id;
    expect((await f.author.delete(`${COURSES}/${archived.id}`)).status).toBe(204);
    expect((await eventually(async () => ofLease(lockEvents, 'released', archivedLockId)[0])).data).toMatchObject({ reason: 'item_deleted' });
    expect((await f.author.get(courseLock(archived.id))).status).toBe(404);
  });

  /**
   * A take that waits on the item's first lock row, which a transaction of the test's own is inserting, while
   * `meanwhile` ends the taker's right to the item; then the row is let go (rolled back) and the take answers.
   */
  const takenMeanwhile = (type: 'CourseTemplate' | 'Task', id: string, take: () => Promise<ApiResponse>, meanwhile: (held: HeldLock) => Promise<void>) =>
    holdingLock(
      f.t.db.url,
      `INSERT INTO locking.locks (account_id, lockable_type, lockable_id, id, holder_id, fencing_token, acquired_at, updated_at, expires_at)
       VALUES ($1, $2, $3, gen_random_uuid(), $4, 1, now(), now(), now())`,
      [f.cast.accountId, type, Number(id), f.cast.author.userId],
      async (held) => {
        const taking = take();
        await held.waiters(1);
        await meanwhile(held);
        await held.release('rollback');
        return taking;
      },
    );

  /** How many user deletions locking has handled (its consumer's inbox), to wait for the next one. */
  const deletionsHeard = async () =>
    (await f.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM locking.inbox WHERE consumer = 'locking-user-deleted'"))[0].n;

  it('a lock taken while its taker is deleted does not outlive them: the deletion waits for the take, then releases it', async () => {
    const victim = await f.t.factory.user(f.cast.accountId, ['admin']);
    const course = await f.createCourse({ title: 'Taken while its taker leaves' });
    const heard = await deletionsHeard();
    // The take waits on the item's first lock row, which a transaction of the test's own is inserting; meanwhile
    // the taker is deleted and locking hears of it. Without a meeting point, the take commits after the release.
    const taken = await takenMeanwhile('CourseTemplate', course.id, () => f.admin.as(victim.token).post(courseLock(course.id)), async () => {
      expect((await f.admin.delete(`${USERS}/${victim.userId}`)).status).toBe(204);
      // The deletion's consumer either waits behind the take, or (no meeting point) is done already.
      await eventually(async () => ((await deletionsHeard()) > heard || (await f.t.db.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).length > 0 ? true : undefined));
    });
    expect(taken.status).toBe(200);
    await eventually(async () => ((await deletionsHeard()) > heard ? true : undefined));
    expect((await f.admin.get(courseLock(course.id))).status).toBe(404);
    expect((await eventually(async () => ofLease(lockEvents, 'released', taken.body.lock.id)[0])).data).toMatchObject({ reason: 'holder_deleted', holder_id: victim.userId });
    expect((await otherAdmin.post(courseLock(course.id))).status).toBe(200);
  });

  it('a take that reaches locking after its taker\'s deletion was heard is a 401 and takes nothing', async () => {
    const victim = await f.t.factory.user(f.cast.accountId, ['admin']);
    const course = await f.createCourse({ title: 'Taken after its taker left' });
    const heard = await deletionsHeard();
    // The take waits where its transaction opens, on its Idempotency-Key, which a transaction of the test's own
    // is claiming; meanwhile the taker is deleted and locking hears of it.
    const taken = await holdingLock(
      f.t.db.url,
      "INSERT INTO locking.idempotency_keys (account_id, user_id, key, fingerprint) VALUES ($1, $2, 'departing-take', 'x')",
      [f.cast.accountId, victim.userId],
      async (held) => {
        const taking = f.admin.as(victim.token).request('POST', courseLock(course.id), undefined, { 'idempotency-key': 'departing-take' });
        await held.waiters(1);
        expect((await f.admin.delete(`${USERS}/${victim.userId}`)).status).toBe(204);
        await eventually(async () => ((await deletionsHeard()) > heard ? true : undefined));
        await held.release('rollback');
        return taking;
      },
    );
    expect(taken.status).toBe(401);
    expect(taken.headers.get('content-type')).toContain('application/problem+json');
    expect(taken.body).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect((await f.admin.get(courseLock(course.id))).status).toBe(404);
    expect((await otherAdmin.post(courseLock(course.id))).status).toBe(200);
  });

  /** How many course-author removals locking has handled (its consumer's inbox), to wait for the next one. */
  const removalsHeard = async () =>
    (await f.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM locking.inbox WHERE consumer = 'locking-author-removed'"))[0].n;
  /** The status of GET on a course's lock once it answers 404, or the last one within a few seconds. */
  const lockStatusSoon = async (courseId: string) => {
    let status = 0;
    await eventually(async () => ((status = (await f.admin.get(courseLock(courseId))).status) === 404 ? true : undefined), 5_000).catch(() => undefined);
    return status;
  };

  it('an author removed from a course keeps no lock on it: the removal releases it, others write and take it, and the author added again takes it again', async () => {
    const course = await f.createCourse({ title: 'Its author leaves' }, f.author);
    const authors = `${COURSES}/${course.id}/authors`;
    const author = f.cast.author.userId;
    expect((await f.author.post(authors, { users: [{ user_id: f.otherAuthorUser.userId }] })).status).toBe(201);
    const lockId = (await f.author.post(courseLock(course.id))).body.lock.id;
    // Removing the holder is a fenced write: only the holder itself gets through, by leaving the course.
    expect((await f.admin.delete(`${authors}/${author}`)).status).toBe(409);
    expect((await f.author.delete(`${authors}/${author}`, lockHeader(lockId))).status).toBe(204);

    expect(await lockStatusSoon(course.id)).toBe(404);
    const released = await eventually(async () => ofLease(lockEvents, 'released', lockId)[0]);
    expect(released.data).toMatchObject({ reason: 'author_removed', holder_id: author, lockable_type: 'CourseTemplate', lockable_id: Number(course.id) });
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Its author left' } })).status).toBe(200);
    expect((await f.author.post(courseLock(course.id))).status).toBe(403);

    // Removing an author who holds nothing leaves the holder's lock alone.
    expect((await f.admin.post(authors, { users: [{ user_id: author }] })).status).toBe(201);
    const other = (await f.otherAuthor.post(courseLock(course.id))).body.lock;
    expect(other).toMatchObject({ holder_id: String(f.otherAuthorUser.userId) });
    const heard = await removalsHeard();
    expect((await f.otherAuthor.delete(`${authors}/${author}`)).status).toBe(204);
    await eventually(async () => ((await removalsHeard()) > heard ? true : undefined));
    expect((await f.admin.get(courseLock(course.id))).body.lock).toMatchObject({ holder_id: String(f.otherAuthorUser.userId) });

    // Added again, the author takes the lock again once it is free.
    expect((await release(f.otherAuthor, courseLock(course.id), lockHeader(other.id))).status).toBe(204);
    expect((await f.admin.post(authors, { users: [{ user_id: author }] })).status).toBe(201);
    expect((await f.author.post(courseLock(course.id))).status).toBe(200);
  });

  it('a lock taken while its taker is removed from the course\'s authors does not outlive the removal: the removal waits for the take, then releases it', async () => {
    const course = await f.createCourse({ title: 'Taken while its taker is removed' }, f.author);
    const authors = `${COURSES}/${course.id}/authors`;
    const taker = f.otherAuthorUser.userId;
    expect((await f.author.post(authors, { users: [{ user_id: taker }] })).status).toBe(201);
    const heard = await removalsHeard();
    // Catalog has said the taker is an author; the take then waits on the item's first lock row, which a
    // transaction of the test's own is inserting. Meanwhile an administrator removes the taker from the course
    // (nothing is locked yet, so the write goes through) and locking hears of it.
    const taken = await takenMeanwhile('CourseTemplate', course.id, () => f.otherAuthor.post(courseLock(course.id)), async (held) => {
      expect((await f.admin.delete(`${authors}/${taker}`)).status).toBe(204);
      // The removal's consumer waits behind the take (two backends behind this one). With no meeting point nothing
      // waits: give up well within the take's RPC timeout (5 s), and the take commits after the removal was handled.
      await held.waiters(2, 2_000).catch(() => undefined);
    });
    expect(taken.status).toBe(200);
    expect(await lockStatusSoon(course.id)).toBe(404);
    expect(await removalsHeard()).toBeGreaterThan(heard);
    expect((await eventually(async () => ofLease(lockEvents, 'released', taken.body.lock.id)[0])).data).toMatchObject({ reason: 'author_removed', holder_id: taker });
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Its taker was removed' } })).status).toBe(200);
    expect((await otherAdmin.post(courseLock(course.id))).status).toBe(200);
  });

  it('a lock taken while its task is deleted does not outlive the task: the deletion waits for the take, then releases it', async () => {
    const task = (await f.author.post(TASKS, { tasks: [{ title: 'Deleted while taken' }] })).body.tasks[0];
    // Catalog has said the task is the taker's to edit; the take then waits on the item's first lock row, which a
    // transaction of the test's own is inserting. Meanwhile the task is deleted (nothing is locked yet, so the
    // deletion goes through) and locking hears of it.
    const taken = await takenMeanwhile('Task', task.id, () => f.author.post(taskLock(task.id)), async (held) => {
      expect((await f.admin.delete(`${TASKS}/${task.id}`)).status).toBe(204);
      // The deletion's consumer waits behind the take (two backends behind this one); with no meeting point it
      // finds nothing to release and goes on: give up well within the take's RPC timeout.
      await held.waiters(2, 2_000).catch(() => undefined);
    });
    expect(taken.status).toBe(200);
    expect((await eventually(async () => ofLease(lockEvents, 'released', taken.body.lock.id)[0])).data).toMatchObject({ reason: 'item_deleted' });
  });
});

describe('edit locks as leases (LOCK_TTL_SECONDS=1), end to end', () => {
  let t: TestSystem;
  let lockEvents: CloudEvent<LockEventData>[];
  let sub: Subscription;
  let first: ApiClient;
  let second: ApiClient;
  let secondUser: TestUser;
  let courseId: string;

  beforeAll(async () => {
    t = await startTestSystem({ LOCK_TTL_SECONDS: '1' });
    ({ events: lockEvents, sub } = await recordLockEvents(t, 'e2e-lock-leases'));
    const cast = await t.factory.cast();
    first = t.api.as(cast.author.token);
    secondUser = await t.factory.user(cast.accountId, ['admin']);
    second = t.api.as(secondUser.token);
    const created = await first.post(COURSES, { course_templates: [courseRequest({ title: 'Leased' })] });
    expect(created.status).toBe(201);
    courseId = created.body.course_templates[0].id;
  });
  afterAll(async () => {
    await sub?.unsubscribe();
    await t?.close();
  });

  it('expires on its own: GET is a 404, renewing is a 409, the next caller takes it; expiry is reported once; a stale holder is refused after the takeover', async () => {
    const path = courseLock(courseId);
    const lease = (await first.post(path)).body.lock.id;
    expect((await first.get(path)).body.lock.expires_in).toBeLessThanOrEqual(1);
    expect((await second.post(path)).status).toBe(409);

    await sleep(1300);
    expect((await first.get(path)).status).toBe(404);
    expect((await first.get(path)).status).toBe(404);
    const renewed = await renew(first, path, lockHeader(lease));
    expect(renewed.status).toBe(409);
    expect(renewed.body).toMatchObject({ code: 'LOCK_NOT_LIVE' });

    const takeover = await second.post(path);
    expect(takeover.status).toBe(200);
    expect(takeover.body.lock).toMatchObject({ holder_id: String(secondUser.userId) });
    expect(takeover.body.lock.id).not.toBe(lease);

    // The first holder's lease ran out: its writes, with or without its old lock id, cannot overwrite the new holder's work.
    const stale = await first.request('PATCH', `${COURSES}/${courseId}`, { course_template: { title: 'Stale write' } }, lockHeader(lease));
    expect(stale.status).toBe(409);
    const unfenced = await first.patch(`${COURSES}/${courseId}`, { course_template: { title: 'Stale write' } });
    expect(unfenced.status).toBe(409);
    expect(unfenced.body).toMatchObject({ code: 'LOCKED', detail: expect.stringContaining(`user ${secondUser.userId}`) });
    expect((await release(first, path, lockHeader(lease))).status).toBe(409);
    expect((await second.request('PATCH', `${COURSES}/${courseId}`, { course_template: { title: 'New holder' } }, lockHeader(takeover.body.lock.id))).status).toBe(200);

    const acquiredTokens = await eventually(async () => {
      const tokens = lockEvents.filter((e) => e.type === 'locking.lock.acquired').map((e) => e.data.fencing_token);
      return tokens.length === 2 ? tokens : undefined;
    });
    expect(acquiredTokens).toEqual([1, 2]);
    await eventually(async () => (ofLease(lockEvents, 'expired', lease).length ? true : undefined));
    // Observed by two GETs, a PUT and a POST: recorded once.
    await sleep(300);
    expect(ofLease(lockEvents, 'expired', lease)).toHaveLength(1);
  });

  it('a renewal starts the lifetime again', async () => {
    const task = (await first.post(TASKS, { tasks: [{ title: 'Renewed' }] })).body.tasks[0];
    const path = taskLock(task.id);
    const lease = (await first.post(path)).body.lock.id;
    for (let i = 0; i < 3; i++) {
      await sleep(600);
      expect((await renew(first, path, lockHeader(lease))).status).toBe(204);
    }
    // 1.8 s after it was taken, well past one lifetime, it is still the first caller's.
    expect((await second.post(path)).status).toBe(409);
    expect((await first.get(path)).body.lock.holder_id).toBeDefined();
  });
});
