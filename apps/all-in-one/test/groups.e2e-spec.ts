import type { CloudEvent } from '@lms/contracts';
import { type ApiClient, eventually, holdingLock, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const GROUPS = '/api/author/groups';
const learnersOf = (groupId: string) => `${GROUPS}/${groupId}/learners`;


interface GroupRecord {
  id: string;
  parent_id: string;
  name: string;
  type: string;
  users_count: number;
}

describe('groups and group learners, end to end (gateway → NATS → identity → Postgres)', () => {
  let t: TestSystem;
  let admin: ApiClient;
  let accountId: number;
  let author: TestUser;
  let learner: TestUser;
  let stranger: TestUser;
  let strangerLearner: TestUser;
  const events: CloudEvent[] = [];
  let unsubscribe: () => Promise<void>;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
    accountId = await t.factory.accountIdOf('default');
    author = await t.factory.user(accountId, ['author']);
    learner = await t.factory.user(accountId, ['learner']);
    const other = await t.factory.account();
    stranger = await t.factory.user(other, ['admin']);
    strangerLearner = await t.factory.user(other, ['learner']);
    const sub = await t.system.bus.events.consume(
      {
        durable: 'e2e-groups',
        types: ['identity.group.created', 'identity.group.updated', 'identity.group.deleted', 'identity.group_membership.added', 'identity.group_membership.removed'],
        maxDeliver: 3,
        backoffMs: [100],
      },
      async (event) => void events.push(event),
    );
    unsubscribe = () => sub.unsubscribe();
  });
  afterAll(async () => {
    await unsubscribe?.();
    await t?.close();
  });

  const createGroups = (api: ApiClient, ...groups: Record<string, unknown>[]) => api.post(GROUPS, { groups });
  const createGroup = async (fields: Record<string, unknown>, api: ApiClient = admin): Promise<GroupRecord> => {
    const res = await createGroups(api, fields);
    expect(res.status).toBe(201);
    return res.body.groups[0];
  };
  const addLearners = (groupId: string, userIds: unknown[], api: ApiClient = admin) => api.post(learnersOf(groupId), { users: userIds.map((user_id) => ({ user_id })) });
  const showGroup = async (id: string): Promise<GroupRecord> => (await admin.get(`${GROUPS}/${id}`)).body.groups[0];
  const memberIds = async (groupId: string, query = ''): Promise<string[]> => {
    const res = await admin.get(`${learnersOf(groupId)}?per_page=1000${query}`);
    expect(res.status).toBe(200);
    return res.body.learners.map((l: { id: string }) => l.id);
  };
  const eventOf = (type: string, match: (data: Record<string, unknown>) => boolean) =>
    eventually(async () => events.find((e) => e.type === type && match(e.data as Record<string, unknown>)));

  describe('authentication, audience and tenant isolation', () => {
    it('answers 401 without a token on every endpoint', async () => {
      const anon = admin.as(undefined);
      const group = await createGroup({ name: 'Auth check' });
      for (const res of [
        await anon.get(GROUPS),
        await anon.get(`${GROUPS}/${group.id}`),
        await createGroups(anon, { name: 'x' }),
        await anon.patch(`${GROUPS}/${group.id}`, { group: { name: 'x' } }),
        await anon.put(`${GROUPS}/${group.id}`, { group: { name: 'x' } }),
        await anon.delete(`${GROUPS}/${group.id}`),
        await addLearners(group.id, [learner.userId], anon),
        await anon.get(learnersOf(group.id)),
        await anon.delete(`${learnersOf(group.id)}/${learner.userId}`),
      ]) {
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect((await showGroup(group.id)).name).toBe('Auth check');
    });

    it('answers 403 to a learner on every endpoint and admits authors', async () => {
      const group = await createGroup({ name: 'Audience check' });
      const as = admin.as(learner.token);
      for (const res of [
        await as.get(GROUPS),
        await as.get(`${GROUPS}/${group.id}`),
        await createGroups(as, { name: 'x' }),
        await as.patch(`${GROUPS}/${group.id}`, { group: { name: 'x' } }),
        await as.put(`${GROUPS}/${group.id}`, { group: { name: 'x' } }),
        await as.delete(`${GROUPS}/${group.id}`),
        await addLearners(group.id, [learner.userId], as),
        await as.get(learnersOf(group.id)),
        await as.delete(`${learnersOf(group.id)}/${learner.userId}`),
      ]) {
        expect(res.status).toBe(403);
      }
      expect(await memberIds(group.id)).toEqual([]);
      const byAuthor = admin.as(author.token);
      const made = await createGroup({ name: 'By an author' }, byAuthor);
      expect((await addLearners(made.id, [learner.userId], byAuthor)).status).toBe(201);
      expect((await byAuthor.get(learnersOf(made.id))).status).toBe(200);
    });

    it("answers 404 for another account's group on every endpoint, changes nothing and never lists it", async () => {
      const mine = await createGroup({ name: 'Private group' });
      expect((await addLearners(mine.id, [learner.userId])).status).toBe(201);
      const other = admin.as(stranger.token);
      for (const res of [
        await other.get(`${GROUPS}/${mine.id}`),
        await other.patch(`${GROUPS}/${mine.id}`, { group: { name: 'Stolen' } }),
        await other.put(`${GROUPS}/${mine.id}`, { group: { name: 'Stolen' } }),
        await other.delete(`${GROUPS}/${mine.id}`),
        await addLearners(mine.id, [strangerLearner.userId], other),
        await other.get(learnersOf(mine.id)),
        await other.delete(`${learnersOf(mine.id)}/${learner.userId}`),
      ]) {
        expect(res.status).toBe(404);
      }
      const listed = await other.get(`${GROUPS}?per_page=1000`);
      expect(listed.body.groups.map((g: GroupRecord) => g.id)).not.toContain(mine.id);
      expect(await showGroup(mine.id)).toMatchObject({ name: 'Private group', users_count: 1 });
      expect(await memberIds(mine.id)).toEqual([String(learner.userId)]);
      // A group of the other account is not a valid parent here, and same names across accounts are fine.
      const theirs = await createGroup({ name: 'Private group' }, other);
      const res = await createGroups(admin, { name: 'Child', parent_id: theirs.id });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('GROUP_PARENT_NOT_FOUND');
      expect((await admin.patch(`${GROUPS}/${mine.id}`, { group: { parent_id: theirs.id } })).status).toBe(400);
    });

    it("answers 404 when adding another account's user, and does not list or count them", async () => {
      const group = await createGroup({ name: 'No foreigners' });
      const res = await addLearners(group.id, [learner.userId, strangerLearner.userId]);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('USER_NOT_FOUND');
      expect(res.body.detail).toContain(String(strangerLearner.userId));
      expect(await memberIds(group.id)).toEqual([]);
      expect((await showGroup(group.id)).users_count).toBe(0);
    });
  });

  describe('groups', () => {
    it('creates every element (201) with the spec shape, defaults type to group and parent_id to ""', async () => {
      const res = await createGroups(admin, { name: 'Sales' }, { name: 'EMEA', type: 'domain' });
      expect(res.status).toBe(201);
      const [sales, emea] = res.body.groups;
      expect(res.body).toEqual({
        meta: {},
        groups: [
          { id: expect.stringMatching(/^\d+$/), parent_id: '', name: 'Sales', type: 'group', users_count: 0, links: { learners: `/api/author/groups/${sales.id}/learners` } },
          { id: expect.stringMatching(/^\d+$/), parent_id: '', name: 'EMEA', type: 'domain', users_count: 0, links: { learners: `/api/author/groups/${emea.id}/learners` } },
        ],
      });
      const child = await createGroup({ name: 'Sales EMEA', parent_id: sales.id });
      expect(child.parent_id).toBe(sales.id);
      // parent_id as a number, and '' or null for none, are accepted too.
      expect((await createGroup({ name: 'Numeric parent', parent_id: Number(sales.id) })).parent_id).toBe(sales.id);
      expect((await createGroup({ name: 'Empty parent', parent_id: '' })).parent_id).toBe('');
      expect((await createGroup({ name: 'Null parent', parent_id: null })).parent_id).toBe('');
      const created = await eventOf('identity.group.created', (d) => d.id === Number(child.id));
      expect(created).toMatchObject({ source: '/identity', accountid: accountId, data: { id: Number(child.id), parent_id: Number(sales.id), name: 'Sales EMEA', type: 'group' } });
    });

    it.each([
      ['an empty array', { groups: [] }, 'groups'],
      ['no groups key', { group: { name: 'x' } }, 'groups'],
      ['a missing name', { groups: [{}] }, 'groups[0].name'],
      ['a blank name', { groups: [{ name: '   ' }] }, 'groups[0].name'],
      ['a non-string name (a number is its text; a boolean is not)', { groups: [{ name: false }] }, 'groups[0].name'],
      ['an unknown type', { groups: [{ name: 'x', type: 'team' }] }, 'groups[0].type'],
      ['a malformed parent_id', { groups: [{ name: 'x', parent_id: 'abc' }] }, 'groups[0].parent_id'],
      ['mass assignment of account_id', { groups: [{ name: 'x', account_id: 99 }] }, 'groups[0].account_id'],
      ['mass assignment of id', { groups: [{ name: 'x', id: 5 }] }, 'groups[0].id'],
      ['mass assignment of users_count', { groups: [{ name: 'x', users_count: 5 }] }, 'groups[0].users_count'],
      ['an unknown top-level field', { groups: [{ name: 'x' }], account_id: 3 }, 'account_id'],
    ])('answers 400 with field errors for %s, and stores nothing', async (_case, body, field) => {
      const before = await t.factory.count('identity.groups');
      const res = await admin.post(GROUPS, body);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      expect(await t.factory.count('identity.groups')).toBe(before);
    });

    it('refuses an unknown parent and a sibling name taken in any case, all or nothing (400)', async () => {
      const parent = await createGroup({ name: 'Parent' });
      await createGroup({ name: 'Taken', parent_id: parent.id });
      const before = await t.factory.count('identity.groups');
      const unknownParent = await createGroups(admin, { name: 'Fine' }, { name: 'Orphan', parent_id: '999999' });
      expect(unknownParent.status).toBe(400);
      expect(unknownParent.body.errors).toEqual([expect.objectContaining({ field: 'groups[1].parent_id' })]);
      const taken = await createGroups(admin, { name: 'Fresh' }, { name: 'TAKEN', parent_id: parent.id });
      expect(taken.status).toBe(400);
      expect(taken.body.code).toBe('GROUP_NAME_TAKEN');
      const twice = await createGroups(admin, { name: 'Twin' }, { name: 'twin' });
      expect(twice.status).toBe(400);
      expect(await t.factory.count('identity.groups')).toBe(before);
      // The same name under another parent, or at the root, is a different sibling set.
      expect((await createGroups(admin, { name: 'Taken' })).status).toBe(201);
    });

    it('lets exactly one of concurrent creates of the same sibling name win', async () => {
      const results = await Promise.all([createGroups(admin, { name: 'Raced' }), createGroups(admin, { name: 'raced' }), createGroups(admin, { name: 'RACED' })]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    });

    it('shows one group (200) and answers 404 for an unknown id and 400 for a non-integer id', async () => {
      const group = await createGroup({ name: 'Shown' });
      const res = await admin.get(`${GROUPS}/${group.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ meta: {}, groups: [group] });
      expect((await admin.get(`${GROUPS}/999999`)).status).toBe(404);
      // Ids beyond the 32-bit columns are invalid ids (400), not a database error.
      expect((await admin.get(`${GROUPS}/99999999999`)).status).toBe(400);
      expect((await admin.get(`${GROUPS}/abc`)).status).toBe(400);
    });

    it('lists with search by name (case-insensitive, wildcards literal), type filter and paging', async () => {
      const a = await createGroup({ name: 'Zeta Alpha' });
      const b = await createGroup({ name: 'zeta beta', type: 'domain' });
      await createGroup({ name: '100% Zeta_x' });
      const search = await admin.get(`${GROUPS}?search=ZETA&per_page=1000`);
      expect(search.status).toBe(200);
      expect(search.body.groups.map((g: GroupRecord) => g.name)).toEqual(['Zeta Alpha', 'zeta beta', '100% Zeta_x']);
      expect((await admin.get(`${GROUPS}?search=${encodeURIComponent('%')}&per_page=1000`)).body.groups.map((g: GroupRecord) => g.name)).toEqual(['100% Zeta_x']);
      const domains = await admin.get(`${GROUPS}?search=zeta&type=domain`);
      expect(domains.body.groups).toEqual([b]);
      const groupsOnly = await admin.get(`${GROUPS}?search=zeta&type=group&per_page=1000`);
      expect(groupsOnly.body.groups.map((g: GroupRecord) => g.id)).toContain(a.id);
      expect(groupsOnly.body.groups.every((g: GroupRecord) => g.type === 'group')).toBe(true);
      expect((await admin.get(`${GROUPS}?type=team`)).status).toBe(400);
      expect((await admin.get(`${GROUPS}?per_page=0`)).status).toBe(400);
      expect((await admin.get(`${GROUPS}?unknown=1`)).status).toBe(400);

      const page1 = await admin.get(`${GROUPS}?search=zeta&per_page=2`);
      expect(page1.body.groups.map((g: GroupRecord) => g.name)).toEqual(['Zeta Alpha', 'zeta beta']);
      expect(page1.headers.get('x-total-count')).toBe('3');
      expect(page1.headers.get('link')).toMatch(/rel="next"/);
      const page2 = await admin.get(`${GROUPS}?search=zeta&per_page=2&page=2`);
      expect(page2.body.groups.map((g: GroupRecord) => g.name)).toEqual(['100% Zeta_x']);
    });

    it.each(['PATCH', 'PUT'])('updates name, type and parent with %s (200) and publishes identity.group.updated', async (method) => {
      const parent = await createGroup({ name: `New parent ${method}` });
      const group = await createGroup({ name: `Before ${method}` });
      const res = await admin.request(method, `${GROUPS}/${group.id}`, { group: { name: `After ${method}`, type: 'domain', parent_id: parent.id } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ meta: {}, groups: [{ ...group, name: `After ${method}`, type: 'domain', parent_id: parent.id }] });
      expect(await showGroup(group.id)).toEqual(res.body.groups[0]);
      const event = await eventOf('identity.group.updated', (d) => d.id === Number(group.id));
      expect(event.data).toEqual({ id: Number(group.id), parent_id: Number(parent.id), name: `After ${method}`, type: 'domain' });
      // Only the given attributes change; '' moves the group back to the root.
      const moved = await admin.request(method, `${GROUPS}/${group.id}`, { group: { parent_id: '' } });
      expect(moved.body.groups[0]).toMatchObject({ name: `After ${method}`, type: 'domain', parent_id: '' });
    });

    it('refuses cycles, unknown parents, taken sibling names and invalid bodies (400), changing nothing', async () => {
      const root = await createGroup({ name: 'Cycle root' });
      const mid = await createGroup({ name: 'Cycle mid', parent_id: root.id });
      const leaf = await createGroup({ name: 'Cycle leaf', parent_id: mid.id });
      await createGroup({ name: 'Occupied', parent_id: mid.id });
      for (const [body, code] of [
        [{ group: { parent_id: leaf.id } }, 'GROUP_CYCLE'],
        [{ group: { parent_id: root.id } }, 'GROUP_CYCLE'],
        [{ group: { parent_id: '999999' } }, 'GROUP_PARENT_NOT_FOUND'],
      ] as const) {
        const res = await admin.patch(`${GROUPS}/${root.id}`, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe(code);
      }
      expect((await admin.patch(`${GROUPS}/${leaf.id}`, { group: { name: 'OCCUPIED' } })).body.code).toBe('GROUP_NAME_TAKEN');
      for (const body of [{}, { group: { name: '' } }, { group: { name: null } }, { group: { type: 'team' } }, { groups: [{ name: 'x' }] }, { group: { name: 'ok', id: 1 } }, { group: { account_id: 2 } }, { group: { users_count: 9 } }]) {
        const res = await admin.patch(`${GROUPS}/${leaf.id}`, body);
        expect(res.status).toBe(400);
      }
      expect(await showGroup(root.id)).toEqual(root);
      expect(await showGroup(leaf.id)).toEqual(leaf);
    });

    it('lets only one of two concurrent opposite moves win, so no cycle can form', async () => {
      const a = await createGroup({ name: 'Swap A' });
      const b = await createGroup({ name: 'Swap B' });
      const results = await Promise.all([
        admin.patch(`${GROUPS}/${a.id}`, { group: { parent_id: b.id } }),
        admin.patch(`${GROUPS}/${b.id}`, { group: { parent_id: a.id } }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)?.body.code).toBe('GROUP_CYCLE');
      const parents = [(await showGroup(a.id)).parent_id, (await showGroup(b.id)).parent_id];
      expect(parents.filter((p) => p === '')).toHaveLength(1);
    });

    it('documents every group route in the OpenAPI document', async () => {
      const doc = (await admin.get('/api/openapi.json')).body;
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/api/author/groups', '/api/author/groups/{id}', '/api/author/groups/{group_id}/learners', '/api/author/groups/{group_id}/learners/{id}']),
      );
    });

    it('answers 404 to an update of an unknown group', async () => {
      expect((await admin.put(`${GROUPS}/999999`, { group: { name: 'Ghost' } })).status).toBe(404);
    });

    it('deletes a group (204) with its memberships, refusing one with children (409)', async () => {
      const parent = await createGroup({ name: 'Doomed parent' });
      const child = await createGroup({ name: 'Doomed child', parent_id: parent.id });
      expect((await addLearners(parent.id, [learner.userId])).status).toBe(201);
      const refused = await admin.delete(`${GROUPS}/${parent.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('GROUP_HAS_CHILDREN');
      expect((await showGroup(parent.id)).users_count).toBe(1);

      expect((await admin.delete(`${GROUPS}/${child.id}`)).status).toBe(204);
      const res = await admin.delete(`${GROUPS}/${parent.id}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await admin.get(`${GROUPS}/${parent.id}`)).status).toBe(404);
      expect((await admin.get(learnersOf(parent.id))).status).toBe(404);
      expect((await admin.delete(`${GROUPS}/${parent.id}`)).status).toBe(404);
      const event = await eventOf('identity.group.deleted', (d) => d.id === Number(parent.id));
      expect(event.data).toEqual({ id: Number(parent.id), parent_id: null, name: 'Doomed parent', type: 'group' });
    });

    it('answers 400 to a delete with a non-integer id', async () => {
      expect((await admin.delete(`${GROUPS}/1.5`)).status).toBe(400);
    });
  });

  describe('group learners', () => {
    let people: TestUser[];
    beforeAll(async () => {
      people = [];
      for (const [uid, firstName, lastName, email] of [
        ['zmiller', 'Ada', 'Lovelace', 'ada@math.example'],
        ['bturing', 'Alan', 'Turing', 'alan@bletchley.example'],
        ['ghopper', 'Grace', 'Hopper', null],
        ['nobody_named', null, null, 'anon@example.test'],
      ] as const) {
        const user = await t.factory.user(accountId, ['learner'], `${uid}-${Date.now()}`);
        await t.factory.setUserNames(user.userId, { firstName, lastName, email });
        people.push(user);
      }
    });

    it('adds members (201) and answers the named learners with the group under linked.groups', async () => {
      const group = await createGroup({ name: 'Learners A' });
      const [ada, alan] = people;
      const res = await addLearners(group.id, [ada.userId, alan.userId]);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        meta: {},
        linked: { groups: [{ ...group, users_count: 2 }] },
        learners: [
          { id: String(ada.userId), group: group.id, avatar: null, completed_courses_count: 0, email: 'ada@math.example', name: 'Ada Lovelace', next_due_date: null },
          { id: String(alan.userId), group: group.id, avatar: null, completed_courses_count: 0, email: 'alan@bletchley.example', name: 'Alan Turing', next_due_date: null },
        ],
      });
      const added = await eventOf('identity.group_membership.added', (d) => d.group_id === Number(group.id) && d.user_id === ada.userId);
      expect(added.accountid).toBe(accountId);
    });

    it("answers a learner's avatar as the user's avatar_url, in the add's answer and the list", async () => {
      const group = await createGroup({ name: 'With avatars' });
      const [ada, alan] = people;
      const avatar = 'https://cdn.example.com/avatars/ada.png';
      expect((await admin.patch(`/api/admin/users/${ada.userId}`, { user: { avatar_url: avatar } })).status).toBe(200);
      const added = await addLearners(group.id, [ada.userId, alan.userId]);
      expect(added.status).toBe(201);
      expect(added.body.learners.map((l: { avatar: unknown }) => l.avatar)).toEqual([avatar, null]);
      const listed = await admin.get(learnersOf(group.id));
      expect(listed.body.learners.map((l: { id: string; avatar: unknown }) => [l.id, l.avatar])).toEqual([
        [String(ada.userId), avatar],
        [String(alan.userId), null],
      ]);
      expect((await admin.patch(`/api/admin/users/${ada.userId}`, { user: { avatar_url: null } })).status).toBe(200);
    });

    it('is idempotent: adding a member again (or twice in one request) changes nothing and emits no event', async () => {
      const group = await createGroup({ name: 'Learners idempotent' });
      const [ada, alan] = people;
      expect((await addLearners(group.id, [ada.userId, ada.userId])).status).toBe(201);
      const again = await addLearners(group.id, [ada.userId, alan.userId]);
      expect(again.status).toBe(201);
      expect(again.body.learners.map((l: { id: string }) => l.id)).toEqual([String(ada.userId), String(alan.userId)]);
      expect(again.body.linked.groups[0].users_count).toBe(2);
      const concurrent = await Promise.all([addLearners(group.id, [ada.userId]), addLearners(group.id, [ada.userId]), addLearners(group.id, [alan.userId])]);
      expect(concurrent.map((r) => r.status)).toEqual([201, 201, 201]);
      expect((await memberIds(group.id)).sort()).toEqual([String(ada.userId), String(alan.userId)].sort());
      // The outbox holds exactly one `added` event per new membership: repeats recorded none.
      const recorded = await t.db.query<{ user_id: number }>(
        "SELECT (payload->'data'->>'user_id')::int AS user_id FROM identity.outbox WHERE type = 'identity.group_membership.added' AND (payload->'data'->>'group_id')::int = $1 ORDER BY 1",
        [Number(group.id)],
      );
      expect(recorded.map((r) => r.user_id)).toEqual([ada.userId, alan.userId].sort((a, b) => a - b));
      const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM identity.group_memberships WHERE group_id = $1', [Number(group.id)]);
      expect(rows[0].n).toBe(2);
    });

    it('adds the same users sent at once in other orders: every request 201, each user once, answers in the order asked', async () => {
      const users = await Promise.all(Array.from({ length: 8 }, (_, i) => t.factory.user(accountId, ['learner'], `orders-${i}-${Date.now()}`)));
      const ids = users.map((u) => u.userId);
      // Deterministic shuffles, so a failure repeats: rotations and their reversals.
      const orders = Array.from({ length: 16 }, (_, i) => {
        const rotated = [...ids.slice(i % 8), ...ids.slice(0, i % 8)];
        return i % 2 ? rotated.reverse() : rotated;
      });
      for (let round = 0; round < 6; round++) {
        const group = await createGroup({ name: `Learners orders ${round}` });
        // Half are members, and leave meanwhile: an add that meets a removal waits for it mid-insert, which
        // is when another add, in another order, gets ahead of it.
        await addLearners(group.id, ids.slice(0, 4));
        const removals = ids.slice(0, 4).map((id) => admin.delete(`${learnersOf(group.id)}/${id}`));
        const answers = await Promise.all(orders.map((order) => addLearners(group.id, order)));
        expect((await Promise.all(removals)).map((r) => r.status)).toEqual([204, 204, 204, 204]);
        expect(answers.map((r) => [r.status, r.body.code])).toEqual(orders.map(() => [201, undefined]));
        answers.forEach((r, i) => expect(r.body.learners.map((l: { id: string }) => Number(l.id))).toEqual(orders[i]));
      }
    });

    it('answers 404 for an unknown group, and 404 for an unknown or deleted user without adding anyone', async () => {
      expect((await addLearners('999999', [people[0].userId])).status).toBe(404);
      const group = await createGroup({ name: 'Learners 404' });
      const ghost = await t.factory.user(accountId, ['learner']);
      await t.factory.softDeleteUserRow(ghost.userId);
      for (const ids of [[people[0].userId, 999999], [ghost.userId]]) {
        const res = await addLearners(group.id, ids);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('USER_NOT_FOUND');
      }
      expect(await memberIds(group.id)).toEqual([]);
    });

    it('reads a user_id sent as numeric text as the id, as the original service did (a script sends back the string it read)', async () => {
      const group = await createGroup({ name: 'Learners as text' });
      const res = await admin.post(learnersOf(group.id), { users: [{ user_id: String(people[0].userId) }] });
      expect(res.status).toBe(201);
      expect(await memberIds(group.id)).toEqual([String(people[0].userId)]);
    });

    it.each([
      ['an empty users array', { users: [] }],
      ['no users key', { user_ids: [1] }],
      ['a non-integer user_id', { users: [{ user_id: 'abc' }] }],
      ['a user_id that is text but no integer', { users: [{ user_id: '12.5' }] }],
      ['a user_id out of range', { users: [{ user_id: 99999999999 }] }],
      ['an unknown element field (mass assignment)', { users: [{ user_id: 1, group_id: 2 }] }],
      ['an unknown top-level field (mass assignment)', { users: [{ user_id: 1 }], account_id: 2 }],
    ])('answers 400 to a POST with %s, adding nobody', async (_case, body) => {
      const group = await createGroup({ name: `Learners 400 ${_case}` });
      const res = await admin.post(learnersOf(group.id), body);
      expect(res.status).toBe(400);
      expect(await memberIds(group.id)).toEqual([]);
    });

    it('lists members searched by first name, last name, username and e-mail (case-insensitive), sorted by name', async () => {
      const group = await createGroup({ name: 'Learners search' });
      const [ada, alan, grace, anon] = people;
      expect((await addLearners(group.id, people.map((p) => p.userId))).status).toBe(201);
      const res = await admin.get(learnersOf(group.id));
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({});
      expect(res.body.linked).toEqual({ groups: [{ ...group, users_count: 4 }] });
      // Default and sort=name: ascending by the shown name; a user with no name shows (and sorts) by username.
      const ascending = [ada, alan, grace, anon].map((p) => String(p.userId));
      expect(res.body.learners.map((l: { id: string }) => l.id)).toEqual(ascending);
      expect(res.body.learners[3]).toMatchObject({ name: anon.uid, email: 'anon@example.test' });
      expect(res.body.learners[2]).toMatchObject({ name: 'Grace Hopper', email: null });
      expect(await memberIds(group.id, '&sort=name')).toEqual(ascending);
      expect(await memberIds(group.id, '&sort=-name')).toEqual([...ascending].reverse());

      expect(await memberIds(group.id, '&search=ada')).toEqual([String(ada.userId)]); // first name
      expect(await memberIds(group.id, '&search=TURING')).toEqual([String(alan.userId)]); // last name
      expect(await memberIds(group.id, '&search=ghopp')).toEqual([String(grace.userId)]); // username
      expect(await memberIds(group.id, '&search=BLETCHLEY.example')).toEqual([String(alan.userId)]); // e-mail
      expect(await memberIds(group.id, `&search=${encodeURIComponent('grace hop')}`)).toEqual([String(grace.userId)]); // full name
      expect(await memberIds(group.id, '&search=a&sort=-name')).toEqual([anon, grace, alan, ada].map((p) => String(p.userId)));
      expect(await memberIds(group.id, `&search=${encodeURIComponent('%')}`)).toEqual([]);
    });

    it('answers 400 to a sort other than name/-name and to bad paging, 404 for an unknown group', async () => {
      const group = await createGroup({ name: 'Learners sort' });
      for (const query of ['sort=email', 'sort=+name', 'sort=', 'per_page=0', 'page=0', 'other=1']) {
        const res = await admin.get(`${learnersOf(group.id)}?${query}`);
        expect(res.status).toBe(400);
      }
      expect((await admin.get(learnersOf('999999'))).status).toBe(404);
      expect((await admin.get(learnersOf('abc'))).status).toBe(400);
    });

    it('pages learners with page/per_page, a total and a Link header', async () => {
      const group = await createGroup({ name: 'Learners paging' });
      await addLearners(group.id, people.map((p) => p.userId));
      const all = await memberIds(group.id);
      const first = await admin.get(`${learnersOf(group.id)}?per_page=3`);
      expect(first.body.learners.map((l: { id: string }) => l.id)).toEqual(all.slice(0, 3));
      expect(first.headers.get('x-total-count')).toBe('4');
      expect(first.headers.get('link')).toMatch(/rel="next"/);
      const second = await admin.get(`${learnersOf(group.id)}?per_page=3&page=2`);
      expect(second.body.learners.map((l: { id: string }) => l.id)).toEqual(all.slice(3));
      expect(second.body.linked.groups[0].users_count).toBe(4);
    });

    it('never fails with a 500 when members are added while the group is deleted', async () => {
      const group = await createGroup({ name: 'Learners racing a delete' });
      const [add, del] = await Promise.all([addLearners(group.id, [people[0].userId]), admin.delete(`${GROUPS}/${group.id}`)]);
      expect([201, 404]).toContain(add.status);
      expect(del.status).toBe(204);
      const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM identity.group_memberships WHERE group_id = $1', [Number(group.id)]);
      expect(rows[0].n).toBe(0);
    });

    it('adds nobody when a learner is deleted while the add runs: the add waits for the deletion and answers 404', async () => {
      const group = await createGroup({ name: 'Learners racing a user deletion' });
      const leaving = await t.factory.user(accountId, ['learner']);
      // The deletion holds the user's row and waits on the user's token, which a transaction of the test's
      // own holds; the add comes meanwhile. Read unlocked, the user was live to the add, which then added them
      // once the deletion committed: a member deleted before the add, its event after identity.user.deleted.
      const added = await holdingLock(t.db.url, 'SELECT 1 FROM identity.api_tokens WHERE user_id = $1 FOR UPDATE', [leaving.userId], async (held) => {
        const deleting = admin.delete(`/api/admin/users/${leaving.userId}`);
        await held.waiters(1);
        const adding = addLearners(group.id, [people[0].userId, leaving.userId]);
        await held.waiters(2);
        await held.release();
        expect((await deleting).status).toBe(204);
        return adding;
      });
      expect(added.status).toBe(404);
      expect(added.body).toMatchObject({ code: 'USER_NOT_FOUND' });
      const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM identity.group_memberships WHERE group_id = $1', [Number(group.id)]);
      expect(rows[0].n).toBe(0);
    });

    it('hides deleted users from learners and users_count', async () => {
      const group = await createGroup({ name: 'Learners deleted' });
      const leaving = await t.factory.user(accountId, ['learner']);
      await addLearners(group.id, [people[0].userId, leaving.userId]);
      expect((await showGroup(group.id)).users_count).toBe(2);
      await t.factory.softDeleteUserRow(leaving.userId);
      expect(await memberIds(group.id)).toEqual([String(people[0].userId)]);
      expect((await showGroup(group.id)).users_count).toBe(1);
      const listed = (await admin.get(`${GROUPS}?search=${encodeURIComponent('Learners deleted')}`)).body.groups;
      expect(listed).toEqual([expect.objectContaining({ id: group.id, users_count: 1 })]);
      expect((await admin.get(`${learnersOf(group.id)}?search=${leaving.uid}`)).body.learners).toEqual([]);
    });

    it('removes a member (204), answers 204 again for a non-member (nothing to do), and 404 for an unknown user, an unknown group or another account', async () => {
      const group = await createGroup({ name: 'Learners remove' });
      const [ada, alan] = people;
      await addLearners(group.id, [ada.userId, alan.userId]);
      const res = await admin.delete(`${learnersOf(group.id)}/${ada.userId}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await memberIds(group.id)).toEqual([String(alan.userId)]);
      expect((await showGroup(group.id)).users_count).toBe(1);
      const removed = await eventOf('identity.group_membership.removed', (d) => d.group_id === Number(group.id) && d.user_id === ada.userId);
      expect(removed.accountid).toBe(accountId);

      // A script running its removals again does not stop (the spec lists only 204), and nothing is published.
      const again = await admin.delete(`${learnersOf(group.id)}/${ada.userId}`);
      expect(again.status).toBe(204);
      expect((await showGroup(group.id)).users_count).toBe(1);
      const unknown = await admin.delete(`${learnersOf(group.id)}/99999999`);
      expect([unknown.status, unknown.body.code]).toEqual([404, 'USER_NOT_FOUND']);
      expect((await admin.delete(`${learnersOf(group.id)}/${stranger.userId}`)).status).toBe(404);
      expect((await admin.delete(`${learnersOf(group.id)}/99999999999`)).status).toBe(400);
      expect((await admin.get(learnersOf('99999999999'))).status).toBe(400);
      expect((await admin.delete(`${learnersOf('999999')}/${alan.userId}`)).status).toBe(404);
      expect((await admin.delete(`${learnersOf(group.id)}/abc`)).status).toBe(400);
      // Re-adding after removal works.
      expect((await addLearners(group.id, [ada.userId])).body.linked.groups[0].users_count).toBe(2);
    });
  });
});
