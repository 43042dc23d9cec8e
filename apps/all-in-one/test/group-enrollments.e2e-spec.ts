import { DIRECTORY_SUBJECTS, type DirectoryUserGroupsReply } from '@lms/contracts';
import { contextSealFor, loadConfig, requestSigned } from '@lms/platform';
import { eventually, holdingLock, queryDatabase, TEST_CONTEXT_SIGNING_KEY } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, enrollmentsOf, startEnrollmentFixture } from './enrollment-fixture.js';

const GROUPS = '/api/author/groups';
const GROUPS_CONSUMER = 'catalog-enrollments-groups';

describe('group enrollments, end to end', () => {
  let f: EnrollmentFixture;

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-group-enrollments');
  });
  afterAll(async () => {
    await f?.close();
  });

  const newGroup = async (name: string, userIds: number[]) => {
    const res = await f.admin.post(GROUPS, { groups: [{ name }] });
    expect(res.status).toBe(201);
    const id = Number(res.body.groups[0].id);
    if (userIds.length > 0) expect((await f.admin.post(`${GROUPS}/${id}/learners`, { users: userIds.map((user_id) => ({ user_id })) })).status).toBe(201);
    return id;
  };
  /** Runs `body` while the test holds the learner's membership lock (apps/catalog/src/enrollments/membership-lock.ts): catalog's joins and leaves of theirs wait. */
  const holdingMembership = <T>(userId: number, body: Parameters<typeof holdingLock<T>>[3]) =>
    holdingLock(f.t.db.url, 'SELECT pg_advisory_xact_lock(1767701, hashtext($1))', [`${f.cast.accountId}:${userId}`], body);
  type Listed = { enrollments: Array<{ id: number; group_id: number | null; links: { learner: { id: number } } }> };
  const listed = async (courseId: string, query = ''): Promise<Listed> => (await f.admin.get(`${enrollmentsOf(courseId)}?per_page=100${query}`)).body;
  const learnersOf = async (courseId: string, query = '') => (await listed(courseId, query)).enrollments.map((e) => e.links.learner.id).sort((a, b) => a - b);
  /** The group that holds the learner's enrollment in an answer that lists it. */
  const groupIn = (body: Listed, userId: number) => body.enrollments.find((e) => e.links.learner.id === userId)?.group_id;

  it("enrolls a group's current learners, and learners who join it later, with the group's settings", async () => {
    const course = await f.publishedCourse({ title: 'Group course' });
    const [a, b, c] = [await f.newLearner(), await f.newLearner(), await f.newLearner()];
    const groupId = await newGroup('Sales', [a.userId, b.userId]);
    // b is enrolled already: skipped and reported, the group's other learner enrolled.
    await f.enroll(course.id, [{ user_id: b.userId }]);
    const res = await f.author.post(enrollmentsOf(course.id), { enrollments: [{ group_id: groupId, required: false, end_at: '2033-01-01T00:00:00Z' }] });
    expect(res.status).toBe(201);
    expect(res.body.enrollments).toEqual([expect.objectContaining({ group_id: groupId, required: false, end_at: '2033-01-01T00:00:00.000Z', links: { learner: { id: a.userId } } })]);
    expect(res.body.skipped).toEqual([expect.objectContaining({ user_id: b.userId, reason: 'already_enrolled' })]);

    expect((await f.admin.post(`${GROUPS}/${groupId}/learners`, { users: [{ user_id: c.userId }] })).status).toBe(201);
    await eventually(async () => ((await learnersOf(course.id)).includes(c.userId) ? true : undefined));
    const joined = (await f.admin.get(enrollmentsOf(course.id))).body.enrollments.find((e: { links: { learner: { id: number } } }) => e.links.learner.id === c.userId);
    expect(joined).toMatchObject({ group_id: groupId, required: false, end_at: '2033-01-01T00:00:00.000Z', state: 'assigned' });
    expect(await learnersOf(course.id)).toEqual([a.userId, b.userId, c.userId].sort((x, y) => x - y));
  });

  it('keeps a started enrollment when its learner leaves the group, and removes one never started', async () => {
    const course = await f.publishedCourse({ title: 'Leavers' });
    const [started, idle] = [await f.newLearner(), await f.newLearner()];
    const groupId = await newGroup('Support', [started.userId, idle.userId]);
    const { enrollments } = await f.enroll(course.id, [{ group_id: groupId }]);
    const startedId = enrollments.find((e: { links: { learner: { id: number } } }) => e.links.learner.id === started.userId).id;
    expect((await f.admin.patch(`${ENROLLMENTS}/${startedId}`, { enrollments: [{ state: 'active' }] })).status).toBe(200);
    for (const user of [started, idle]) expect((await f.admin.delete(`${GROUPS}/${groupId}/learners/${user.userId}`)).status).toBe(204);
    await eventually(async () => ((await learnersOf(course.id, '&state=removed')).includes(idle.userId) ? true : undefined));
    expect(await learnersOf(course.id)).toEqual([started.userId]);
    const [left] = (await f.admin.get(`${enrollmentsOf(course.id)}?state=removed`)).body.enrollments;
    expect(left).toMatchObject({ removal_reason: 'left_group', links: { learner: { id: idle.userId } } });

    // Back in the group: enrolled again (a new enrollment); the started one is still the same.
    expect((await f.admin.post(`${GROUPS}/${groupId}/learners`, { users: [{ user_id: idle.userId }, { user_id: started.userId }] })).status).toBe(201);
    await eventually(async () => ((await learnersOf(course.id)).includes(idle.userId) ? true : undefined));
    expect((await f.admin.get(`${enrollmentsOf(course.id)}?state=active`)).body.enrollments.map((e: { id: number }) => e.id)).toEqual([startedId]);
  });

  it('leaves no open enrollment the group brought to learners who leave it while it is being enrolled', async () => {
    const course = await f.publishedCourse({ title: 'Movers' });
    const members = await Promise.all(Array.from({ length: 4 }, () => f.newLearner()));
    const groupId = await newGroup('Movers', members.map((m) => m.userId));
    const [leavers, stayers] = [members.slice(0, 2), members.slice(2)];
    // Identity named all four; two leave, and catalog has handled that (nothing to withdraw yet), before the enrollment's transaction begins.
    const enrolled = await f.enrollingHeld(course.id, () => f.author.post(enrollmentsOf(course.id), { enrollments: [{ group_id: groupId }] }), async () => {
      for (const m of leavers) expect((await f.admin.delete(`${GROUPS}/${groupId}/learners/${m.userId}`)).status).toBe(204);
      await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.removed', 'group_id', groupId, leavers.length);
    });
    expect(enrolled.status).toBe(201);
    const ids = (users: { userId: number }[]) => users.map((u) => u.userId).sort((a, b) => a - b);
    expect(enrolled.body.enrollments.map((e: { links: { learner: { id: number } } }) => e.links.learner.id).sort((a: number, b: number) => a - b)).toEqual(ids(stayers));
    expect(await learnersOf(course.id)).toEqual(ids(stayers));
    expect(await learnersOf(course.id, '&state=removed')).toEqual(ids(leavers));
  });

  it('keeps, when learners leave a group while it is being enrolled, those the request names or another of its groups holds', async () => {
    const course = await f.publishedCourse({ title: 'Crossings' });
    const [gone, inBoth, named, ofDeleted] = await Promise.all(Array.from({ length: 4 }, () => f.newLearner()));
    const first = await newGroup('Crossings first', [gone.userId, inBoth.userId, named.userId]);
    const second = await newGroup('Crossings second', [inBoth.userId]);
    const deleted = await newGroup('Crossings deleted', [ofDeleted.userId]);
    // The first group comes first, so it brings all three of its learners; the named one is named after it.
    const entries = [{ group_id: first }, { group_id: second }, { user_id: named.userId }, { group_id: deleted }];
    const enrolled = await f.enrollingHeld(course.id, () => f.author.post(enrollmentsOf(course.id), { enrollments: entries }), async () => {
      for (const m of [gone, inBoth, named]) expect((await f.admin.delete(`${GROUPS}/${first}/learners/${m.userId}`)).status).toBe(204);
      expect((await f.admin.delete(`${GROUPS}/${deleted}`)).status).toBe(204);
      await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.removed', 'group_id', first, 3);
      await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group.deleted', 'id', deleted, 1);
    });
    expect(enrolled.status).toBe(201);
    const kept = [inBoth, named, ofDeleted].map((u) => u.userId).sort((a, b) => a - b);
    expect(enrolled.body.enrollments.map((e: { links: { learner: { id: number } } }) => e.links.learner.id).sort((a: number, b: number) => a - b)).toEqual(kept);
    expect(await learnersOf(course.id)).toEqual(kept);
    expect(await learnersOf(course.id, '&state=removed')).toEqual([gone.userId]);
    // The deleted group enrolls nobody more, even though its enrollment was recorded after its deletion was handled.
    expect(await f.t.db.query('SELECT 1 FROM catalog.group_enrollments WHERE group_id = $1', [deleted])).toEqual([]);
    // What holds each kept learner now is their enrollment's group: the second group, none (named), the deleted one.
    for (const body of [enrolled.body, await listed(course.id)]) expect([inBoth, named, ofDeleted].map((u) => groupIn(body, u.userId))).toEqual([second, null, deleted]);
    // So leaving the second group retires it, as it would any enrollment that group brought.
    expect((await f.admin.delete(`${GROUPS}/${second}/learners/${inBoth.userId}`)).status).toBe(204);
    await eventually(async () => ((await learnersOf(course.id, '&state=removed')).includes(inBoth.userId) ? true : undefined));
    expect(await learnersOf(course.id)).toEqual([named.userId, ofDeleted.userId].sort((a, b) => a - b));
  });

  it('keeps the enrollment of a learner who joins the group again before catalog handles their leave', async () => {
    const course = await f.publishedCourse({ title: 'Back again' });
    const learner = await f.newLearner();
    const groupId = await newGroup('Returners', [learner.userId]);
    const [enrolled] = (await f.enroll(course.id, [{ group_id: groupId }])).enrollments;
    await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.added', 'group_id', groupId, 1);
    await holdingMembership(learner.userId, async (held) => {
      expect((await f.admin.delete(`${GROUPS}/${groupId}/learners/${learner.userId}`)).status).toBe(204);
      await held.waiters();
      expect((await f.admin.post(`${GROUPS}/${groupId}/learners`, { users: [{ user_id: learner.userId }] })).status).toBe(201);
      await held.release();
    });
    await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.added', 'group_id', groupId, 2);
    await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.removed', 'group_id', groupId, 1);
    // The leave found them in the group again and changed nothing: the same enrollment, never removed.
    expect((await listed(course.id)).enrollments.map((e) => e.id)).toEqual([enrolled.id]);
    expect(await learnersOf(course.id, '&state=removed')).toEqual([]);
  });

  it('enrolls nobody for a join that catalog handles after the learner left the group again', async () => {
    const course = await f.publishedCourse({ title: 'Passing through' });
    const groupId = await newGroup('Passers', []);
    await f.enroll(course.id, [{ group_id: groupId }]);
    const learner = await f.newLearner();
    await holdingMembership(learner.userId, async (held) => {
      expect((await f.admin.post(`${GROUPS}/${groupId}/learners`, { users: [{ user_id: learner.userId }] })).status).toBe(201);
      await held.waiters();
      expect((await f.admin.delete(`${GROUPS}/${groupId}/learners/${learner.userId}`)).status).toBe(204);
      await held.release();
    });
    await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.added', 'group_id', groupId, 1);
    await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.removed', 'group_id', groupId, 1);
    expect(await learnersOf(course.id)).toEqual([]);
    expect(await learnersOf(course.id, '&state=removed')).toEqual([]);
  });

  it('enrolls a learner the request names as their own, though a group named before holds them: leaving it keeps the enrollment', async () => {
    const course = await f.publishedCourse({ title: 'Named twice' });
    const learner = await f.newLearner();
    const groupId = await newGroup('Named', [learner.userId]);
    const { enrollments } = await f.enroll(course.id, [{ group_id: groupId, required: false }, { user_id: learner.userId }]);
    // The first entry decides the settings; the enrollment is the learner's own either way.
    expect(enrollments.map((e: { group_id: number | null; required: boolean }) => [e.group_id, e.required])).toEqual([[null, false]]);
    expect((await f.admin.delete(`${GROUPS}/${groupId}/learners/${learner.userId}`)).status).toBe(204);
    await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.removed', 'group_id', groupId, 1);
    expect(await learnersOf(course.id)).toEqual([learner.userId]);
  });

  it('keeps an enrollment while another group enrolled in the course still holds its learner; that group\'s leave retires it', async () => {
    const course = await f.publishedCourse({ title: 'Two teams' });
    const [both, onlyFirst] = [await f.newLearner(), await f.newLearner()];
    const first = await newGroup('Team one', [both.userId, onlyFirst.userId]);
    const second = await newGroup('Team two', [both.userId]);
    const elsewhere = await f.publishedCourse({ title: 'Team one only' });
    await f.enroll(course.id, [{ group_id: first }]);
    await f.enroll(course.id, [{ group_id: second }]);
    await f.enroll(elsewhere.id, [{ group_id: first }]);
    expect(groupIn(await listed(course.id), both.userId)).toBe(first);

    for (const user of [both, onlyFirst]) expect((await f.admin.delete(`${GROUPS}/${first}/learners/${user.userId}`)).status).toBe(204);
    await f.identityEventsHandled(GROUPS_CONSUMER, 'identity.group_membership.removed', 'group_id', first, 2);
    // Still in the second group: its enrollment in the course stays, now the second group's; the first
    // group's other course, which the second group is not enrolled in, goes.
    expect(await learnersOf(course.id)).toEqual([both.userId]);
    expect(groupIn(await listed(course.id), both.userId)).toBe(second);
    expect(await learnersOf(elsewhere.id)).toEqual([]);
    expect(await learnersOf(course.id, '&state=removed')).toEqual([onlyFirst.userId]);

    expect((await f.admin.delete(`${GROUPS}/${second}/learners/${both.userId}`)).status).toBe(204);
    await eventually(async () => ((await learnersOf(course.id)).length === 0 ? true : undefined));
    expect(await learnersOf(course.id, '&state=removed')).toEqual([both.userId, onlyFirst.userId].sort((a, b) => a - b));
  });

  it('has identity answer which groups hold a learner within the asking account only', async () => {
    const learner = await f.newLearner();
    const [holds, empty] = [await newGroup('Holds', [learner.userId]), await newGroup('Empty', [])];
    const [{ account_id: otherAccount }] = await f.t.db.query<{ account_id: number }>('SELECT account_id FROM identity.users WHERE id = $1', [f.cast.stranger.userId]);
    const asker = { bus: f.t.system.bus, seal: contextSealFor(loadConfig({ CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY })), timeoutMs: 5_000, service: 'identity', unavailableCode: 'UNAVAILABLE' };
    const ask = (accountId: number) =>
      requestSigned<DirectoryUserGroupsReply>(asker, { requestId: 'user-groups', accountId, subAccountId: null, userId: 0, roles: ['admin'] }, DIRECTORY_SUBJECTS.userGroups, {
        user_id: learner.userId,
        group_ids: [empty, holds, 999_999],
      });
    expect(await ask(f.cast.accountId)).toEqual({ group_ids: [holds] });
    expect(await ask(otherAccount)).toEqual({ group_ids: [] });
  });

  it('refuses deleted and foreign groups (400) and keeps what a deleted group brought', async () => {
    const course = await f.publishedCourse({ title: 'Gone group' });
    const member = await f.newLearner();
    const groupId = await newGroup('Temporary', [member.userId]);
    await f.enroll(course.id, [{ group_id: groupId }]);
    expect((await f.admin.delete(`${GROUPS}/${groupId}`)).status).toBe(204);
    const foreign = await f.stranger.post(GROUPS, { groups: [{ name: 'Elsewhere' }] });
    const res = await f.admin.post(enrollmentsOf(course.id), { enrollments: [{ group_id: Number(foreign.body.groups[0].id) }] });
    expect([res.status, res.body.code, res.body.errors]).toEqual([400, 'ENROLLMENT_LEARNER_INVALID', [{ field: 'enrollments[0].group_id', message: 'no such group' }]]);
    const deleted = await f.admin.post(enrollmentsOf(course.id), { enrollments: [{ group_id: groupId }] });
    expect([deleted.status, deleted.body.code]).toEqual([400, 'ENROLLMENT_LEARNER_INVALID']);
    expect(await learnersOf(course.id)).toEqual([member.userId]);
  });

  it('enrolls a group of 4,000 learners in one request, and re-enrolls them all when the course is published with re_enroll', async () => {
    const course = await f.publishedCourse({ title: 'Everyone' });
    const groupId = await newGroup('Everyone', []);
    const memberIds = await f.t.factory.learners(f.cast.accountId, 4000, groupId);
    const eventsOf = async (type: string) =>
      (await queryDatabase<{ n: number }>(f.t.db.url, `SELECT count(*)::int AS n FROM catalog.outbox WHERE type = $1 AND payload->'data'->>'course_template_id' = $2`, [type, String(course.id)]))[0].n;

    // More rows than one INSERT can bind parameters for, and more learners than one directory request names.
    const res = await f.author.post(enrollmentsOf(course.id), { enrollments: [{ group_id: groupId }] });
    expect(res.status).toBe(201);
    const enrolled = res.body.enrollments as Array<{ group_id: number; state: string; links: { learner: { id: number } } }>;
    expect(enrolled.map((e) => e.links.learner.id).sort((a, b) => a - b)).toEqual(memberIds);
    expect(enrolled.every((e) => e.group_id === groupId && e.state === 'assigned')).toBe(true);
    expect((res.body.linked.learners as Array<{ id: number; name: string }>).map((l) => l.id).sort((a, b) => a - b)).toEqual(memberIds);
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].enrollments_count).toBe(4000);
    expect(await eventsOf('catalog.enrollment.created')).toBe(4000);

    // All of them complete; a publish with re_enroll keeps each completion as history and gives each learner a new attempt.
    await queryDatabase(f.t.db.url, `UPDATE catalog.enrollments SET state = 'complete', completed_at = now(), started_at = now(), progress = 1 WHERE enrollable_type = 'CourseTemplate' AND enrollable_id = $1`, [Number(course.id)]);
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, { re_enroll: true })).status).toBe(200);
    const removed = await f.admin.get(`${enrollmentsOf(course.id)}?state=removed&per_page=1`);
    const open = await f.admin.get(`${enrollmentsOf(course.id)}?state=assigned&per_page=1`);
    expect([removed.headers.get('x-total-count'), open.headers.get('x-total-count')]).toEqual(['4000', '4000']);
    expect(removed.body.enrollments[0]).toMatchObject({ removal_reason: 're_enrolled', state: 'complete', group_id: groupId });
    expect(open.body.enrollments[0]).toMatchObject({ group_id: groupId, required: true });
    expect([await eventsOf('catalog.enrollment.removed'), await eventsOf('catalog.enrollment.created')]).toEqual([4000, 8000]);
  });

  it('enrolls an empty group (201, nobody yet) and its first learner later', async () => {
    const course = await f.publishedCourse({ title: 'Empty group' });
    const groupId = await newGroup('Newcomers', []);
    const res = await f.admin.post(enrollmentsOf(course.id), { enrollments: [{ group_id: groupId }] });
    expect([res.status, res.body.enrollments, res.body.skipped]).toEqual([201, [], []]);
    const first = await f.newLearner();
    await f.admin.post(`${GROUPS}/${groupId}/learners`, { users: [{ user_id: first.userId }] });
    await eventually(async () => ((await learnersOf(course.id)).includes(first.userId) ? true : undefined));
  });
});
