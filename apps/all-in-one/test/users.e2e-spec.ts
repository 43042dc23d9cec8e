import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@lms/contracts';
import { type ApiClient, eventually, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const USERS = '/api/admin/users';
/** An endpoint an author may call: proves a token still authenticates. */
const AUTHOR_ENDPOINT = '/api/author/custom_fields';


/** A completion event as catalog or scheduling would publish it. */
function completionEvent(accountId: number, type: string, data: Record<string, unknown>, id: string = randomUUID()): CloudEvent {
  return { specversion: '1.0', id, source: type.startsWith('catalog') ? '/catalog' : '/scheduling', type, time: new Date().toISOString(), datacontenttype: 'application/json', accountid: accountId, data };
}

describe('users (admin), end to end (gateway → NATS → identity → Postgres)', () => {
  let t: TestSystem;
  let admin: ApiClient;
  let accountId: number;
  let adminUserId: number;
  let author: TestUser;
  let learner: TestUser;
  let stranger: TestUser;
  let seq = 0;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
    ({ accountId, author, learner, stranger } = await t.factory.cast());
    adminUserId = (await t.db.query<{ id: number }>("SELECT id FROM identity.users WHERE account_id = $1 AND uid = 'admin'", [accountId]))[0].id;
  });
  afterAll(() => t?.close());

  const nextUid = (prefix = 'u') => `${prefix}-${++seq}-${randomUUID().slice(0, 6)}`;
  const create = (user: Record<string, unknown>, api: ApiClient = admin) => api.post(USERS, { users: [user] });
  const createOk = async (user: Record<string, unknown> = {}, api: ApiClient = admin) => {
    const res = await create({ uid: nextUid(), ...user }, api);
    expect(res.status).toBe(200);
    return res.body.users[0] as { id: number; uid: string };
  };
  const userCount = async () => Number((await t.db.query<{ n: string }>('SELECT count(*) AS n FROM identity.users'))[0].n);
  const customField = async (name: string, api: ApiClient = admin) => (await api.post('/api/author/custom_fields', { custom_fields: [{ name }] })).body.custom_fields[0].id as string;

  describe('authentication and audience', () => {
    const calls = (api: ApiClient) => [
      () => api.post(USERS, { users: [{ uid: nextUid() }] }),
      () => api.get(USERS),
      () => api.get(`${USERS}/${learner.userId}`),
      () => api.patch(`${USERS}/${learner.userId}`, { user: { first_name: 'x' } }),
      () => api.put(`${USERS}/${learner.userId}`, { user: { first_name: 'x' } }),
      () => api.delete(`${USERS}/${learner.userId}`),
      () => api.post(`${USERS}/${learner.userId}/hide`),
      () => api.get(`${USERS}/${learner.userId}/summary`),
    ];

    it('answers 401 without a token on every endpoint', async () => {
      for (const call of calls(admin.as(undefined))) expect((await call()).status).toBe(401);
    });

    it('answers 403 to learners and authors on every endpoint, changing nothing', async () => {
      const before = await userCount();
      for (const user of [learner, author]) for (const call of calls(admin.as(user.token))) expect((await call()).status).toBe(403);
      expect(await userCount()).toBe(before);
      expect((await admin.get(`${USERS}/${learner.userId}`)).body.users[0].deleted_at).toBeNull();
    });
  });

  describe('create', () => {
    it('creates a learner from the first element and answers 200 with the user envelope', async () => {
      const uid = nextUid('jane');
      const res = await create({ uid, first_name: 'Jane', last_name: 'Doe', email: 'jane@example.test', locale: 'en-us', hire_date: '2024-02-29', avatar_url: 'https://cdn.example.test/j.png' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        meta: { can_masquerade: true },
        linked: {},
        users: [
          {
            id: expect.any(Number),
            uid,
            first_name: 'Jane',
            last_name: 'Doe',
            email: 'jane@example.test',
            locale: 'en-US',
            roles: ['learner'],
            name: 'Jane Doe',
            avatar_url: 'https://cdn.example.test/j.png',
            deleted_at: null,
            hire_date: '2024-02-29',
            links: [
              { rel: 'self', href: `${USERS}/${res.body.users[0].id}` },
              { rel: 'summary', href: `${USERS}/${res.body.users[0].id}/summary` },
            ],
            meta: { can_masquerade: true },
          },
        ],
      });
      expect(Number.isInteger(res.body.users[0].id)).toBe(true);
    });

    it('stores the other attributes, manager (by id and by uid:) and custom field values', async () => {
      const boss = await createOk({ first_name: 'Boss' });
      const region = await customField(`Region ${nextUid()}`);
      const uid = nextUid();
      const res = await create({
        uid, full_name: 'Dr. Who', sortable_name: 'Who, Dr.', job_title: 'Engineer', department: 'R&D', hris_id: `H-${uid}`,
        manager_id: `uid:${boss.uid}`, custom_fields: [{ id: region, value: 'North' }],
      });
      expect(res.status).toBe(200);
      expect(res.body.users[0].name).toBe('Dr. Who');
      const [row] = await t.db.query<Record<string, unknown>>('SELECT job_title, department, hris_id, manager_id, sortable_name, roles FROM identity.users WHERE id = $1', [res.body.users[0].id]);
      expect(row).toEqual({ job_title: 'Engineer', department: 'R&D', hris_id: `H-${uid}`, manager_id: boss.id, sortable_name: 'Who, Dr.', roles: ['learner'] });
      expect(await t.db.query('SELECT custom_field_id, value FROM identity.user_custom_field_values WHERE user_id = $1', [res.body.users[0].id])).toEqual([
        { custom_field_id: Number(region), value: 'North' },
      ]);
      const byId = await create({ uid: nextUid(), manager_id: boss.id });
      expect(byId.status).toBe(200);
      expect((await t.db.query<{ manager_id: number }>('SELECT manager_id FROM identity.users WHERE id = $1', [byId.body.users[0].id]))[0].manager_id).toBe(boss.id);
    });

    it('processes only the first element: the others are neither validated nor created', async () => {
      const [first, second] = [nextUid(), nextUid()];
      const res = await admin.post(USERS, { users: [{ uid: first }, { uid: second }, { uid: 'not valid', roles: ['admin'] }] });
      expect(res.status).toBe(200);
      expect(res.body.users.map((u: { uid: string }) => u.uid)).toEqual([first]);
      expect((await admin.get(`${USERS}/uid:${second}`)).status).toBe(404);
    });

    it.each([
      ['roles', { roles: ['admin'] }, 'users[0].roles'],
      ['id', { id: 1 }, 'users[0].id'],
      ['account_id', { account_id: 1 }, 'users[0].account_id'],
      ['a missing uid', { uid: undefined }, 'users[0].uid'],
      ['a uid with a space', { uid: 'a b' }, 'users[0].uid'],
      ['an impossible hire_date', { hire_date: '2025-02-30' }, 'users[0].hire_date'],
      ['a hire_date with a time', { hire_date: '2025-02-03T00:00:00Z' }, 'users[0].hire_date'],
      ['a hire_date in year 0000', { hire_date: '0000-01-01' }, 'users[0].hire_date'],
      ['a locale that is no language code', { locale: 'english' }, 'users[0].locale'],
      ['a malformed manager_id', { manager_id: 'boss' }, 'users[0].manager_id'],
      ['a malformed e-mail', { email: 'nope' }, 'users[0].email'],
      ['custom fields by name', { custom_fields: [{ name: 'Region', value: 'x' }] }, 'users[0].custom_fields[0].name'],
    ])('answers 400 for %s and stores nothing', async (_case, extra, field) => {
      const before = await userCount();
      const res = await create({ uid: nextUid(), ...extra });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      expect(await userCount()).toBe(before);
    });

    it('answers 400 for an empty or missing users array and a top-level unknown field', async () => {
      for (const body of [{ users: [] }, {}, { user: { uid: nextUid() } }, { users: [{ uid: nextUid() }], account_id: 2 }]) {
        expect((await admin.post(USERS, body)).status).toBe(400);
      }
    });

    it('answers 400 when the uid or the hris_id is taken (deleted users included), case by case', async () => {
      const taken = await createOk({ hris_id: `HR-${nextUid()}` });
      const [row] = await t.db.query<{ hris_id: string }>('SELECT hris_id FROM identity.users WHERE id = $1', [taken.id]);
      const dupUid = await create({ uid: taken.uid });
      expect(dupUid.status).toBe(400);
      expect(dupUid.body).toMatchObject({ code: 'USER_ALREADY_EXISTS', errors: [{ field: 'users[0].uid' }] });
      const dupHris = await create({ uid: nextUid(), hris_id: row.hris_id });
      expect(dupHris.status).toBe(400);
      expect(dupHris.body).toMatchObject({ code: 'HRIS_ID_TAKEN', errors: [{ field: 'users[0].hris_id' }] });
      expect((await admin.delete(`${USERS}/${taken.id}`)).status).toBe(204);
      expect((await create({ uid: taken.uid })).status).toBe(400);
    });

    it('answers 400 for a manager that does not exist, is deleted or is of another account', async () => {
      const gone = await createOk();
      await admin.delete(`${USERS}/${gone.id}`);
      for (const manager_id of [999999, 'uid:nobody-here', gone.id, stranger.userId, `uid:${stranger.uid}`]) {
        const res = await create({ uid: nextUid(), manager_id });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'MANAGER_NOT_FOUND', errors: [{ field: 'users[0].manager_id' }] });
      }
    });

    it("answers 400 naming an unknown custom field (another account's included)", async () => {
      const theirs = await customField(`Theirs ${nextUid()}`, admin.as(stranger.token));
      for (const id of ['999999', theirs]) {
        const before = await userCount();
        const res = await create({ uid: nextUid(), custom_fields: [{ id, value: 'x' }] });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'CUSTOM_FIELD_NOT_FOUND', errors: [{ field: 'users[0].custom_fields[0].id', message: `unknown custom field ${id}` }] });
        expect(await userCount()).toBe(before);
      }
    });

    it('lets exactly one of concurrent creates of the same uid succeed', async () => {
      const uid = nextUid('race');
      const results = await Promise.all(Array.from({ length: 5 }, () => create({ uid })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
      expect((await t.db.query('SELECT id FROM identity.users WHERE account_id = $1 AND uid = $2', [accountId, uid])).length).toBe(1);
    });

    it('allows the same uid in another account', async () => {
      const mine = await createOk();
      expect((await create({ uid: mine.uid }, admin.as(stranger.token))).status).toBe(200);
    });
  });

  describe('show and list', () => {
    it('shows by id and by uid:, 404 for unknown ids and ids of another account', async () => {
      const user = await createOk({ first_name: 'Shown' });
      const byId = await admin.get(`${USERS}/${user.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body.users[0]).toMatchObject({ id: user.id, first_name: 'Shown' });
      expect((await admin.get(`${USERS}/uid:${user.uid}`)).body).toEqual(byId.body);
      expect((await admin.get(`${USERS}/999999`)).status).toBe(404);
      expect((await admin.get(`${USERS}/99999999999`)).status).toBe(404);
      expect((await admin.get(`${USERS}/abc`)).status).toBe(400);
      expect((await admin.as(stranger.token).get(`${USERS}/${user.id}`)).status).toBe(404);
      expect((await admin.as(stranger.token).get(`${USERS}/uid:${user.uid}`)).status).toBe(404);
    });

    it('says nobody can masquerade as himself', async () => {
      const me = await admin.get(`${USERS}/${adminUserId}`);
      expect(me.body.meta).toEqual({ can_masquerade: false });
      expect(me.body.users[0].meta).toEqual({ can_masquerade: false });
    });

    it('searches by first name, last name, full name, uid and e-mail, case-insensitively', async () => {
      const tag = randomUUID().slice(0, 8);
      const a = await createOk({ first_name: `Zed${tag}`, last_name: 'Alpha' });
      const b = await createOk({ uid: `uid-${tag}-b`, email: `b-${tag}@example.test` });
      const c = await createOk({ last_name: `Q${tag}` });
      const search = async (q: string) => (await admin.get(`${USERS}?search=${encodeURIComponent(q)}&per_page=1000`)).body.users.map((u: { id: number }) => u.id).sort();
      expect(await search(tag)).toEqual([a.id, b.id, c.id].sort());
      expect(await search(`zed${tag.toUpperCase()} alpha`)).toEqual([a.id]);
      expect(await search(`B-${tag}@EXAMPLE`)).toEqual([b.id]);
      // `%` and `_` match themselves, not anything.
      expect(await search('%')).toEqual([]);
      expect(await search(`${tag}%_`)).toEqual([]);
    });

    it('pages with a Link header and never lists another account’s users', async () => {
      const mine = await createOk();
      const all = await admin.get(`${USERS}?per_page=1000`);
      expect(all.status).toBe(200);
      expect(all.body.meta).toEqual({ can_masquerade: true });
      expect(all.body.linked).toEqual({});
      const ids = all.body.users.map((u: { id: number }) => u.id);
      expect(ids).toContain(mine.id);
      const page = await admin.get(`${USERS}?per_page=2&page=2`);
      expect(page.body.users.map((u: { id: number }) => u.id)).toEqual(ids.slice(2, 4));
      expect(page.headers.get('link')).toMatch(/rel="prev"/);
      const theirs = (await admin.as(stranger.token).get(`${USERS}?per_page=1000`)).body.users.map((u: { id: number }) => u.id);
      expect(theirs).not.toContain(mine.id);
      expect(theirs).toContain(stranger.userId);
      expect((await admin.get(`${USERS}?per_page=0`)).status).toBe(400);
      expect((await admin.get(`${USERS}?unknown=1`)).status).toBe(400);
    });

    it('follows next links by bookmark through the same users as page numbers, in this account only', async () => {
      for (let i = 0; i < 3; i++) await createOk();
      const all = (await admin.get(`${USERS}?per_page=1000`)).body.users.map((u: { id: number }) => u.id);
      const rel = (link: string | null, name: string) => new RegExp(`<([^>]*)>; rel="${name}"`).exec(link ?? '')?.[1];
      const followed: number[] = [];
      let url: string | undefined = `${USERS}?per_page=2`;
      const bookmarks: string[] = [];
      for (let hops = 0; url && hops < 100; hops++) {
        const res = await admin.get(url);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-total-count')).toBe(String(all.length));
        followed.push(...res.body.users.map((u: { id: number }) => u.id));
        url = rel(res.headers.get('link'), 'next');
        if (url) bookmarks.push(url);
      }
      expect(followed).toEqual(all);
      // Next links carry an opaque bookmark; prev and last keep page numbers.
      expect(bookmarks.every((next) => /[?&]page=bookmark:[A-Za-z0-9_-]+(&|$)/.test(next))).toBe(true);
      const third = await admin.get(bookmarks[1]);
      expect(rel(third.headers.get('link'), 'prev')).toBe(`${admin.baseUrl}${USERS}?page=2&per_page=2`);
      expect(third.body.users).toEqual((await admin.get(`${USERS}?per_page=2&page=3`)).body.users);
      // A bookmark of this account's users lists nothing of another account's.
      const theirs = await admin.as(stranger.token).get(bookmarks[0]);
      expect(theirs.status).toBe(200);
      expect(theirs.body.users.map((u: { id: number }) => u.id)).not.toEqual(expect.arrayContaining(all.slice(2, 4)));
      expect((await admin.get(`${USERS}?page=bookmark:nonsense`)).status).toBe(400);
    });

    it('answers a bookmark past the ids any user can have with an empty page, not a 500, on the admin and the author list', async () => {
      const bookmark = (after: number) => `bookmark:${Buffer.from(JSON.stringify([2, after])).toString('base64url')}`;
      for (const path of [USERS, '/api/author/users']) {
        for (const after of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
          const res = await admin.get(`${path}?per_page=2&page=${bookmark(after)}`);
          expect([path, after, res.status, res.body.users]).toEqual([path, after, 200, []]);
        }
        const fromStart = await admin.get(`${path}?per_page=2&page=${bookmark(-(2 ** 40))}`);
        expect(fromStart.body.users).toEqual((await admin.get(`${path}?per_page=2`)).body.users);
      }
    });
  });

  describe('update', () => {
    it.each(['PATCH', 'PUT'])('changes only the named attributes with %s, uid included', async (method) => {
      const region = await customField(`Dept ${nextUid()}`);
      const user = await createOk({ first_name: 'Old', last_name: 'Name', locale: 'fr', custom_fields: [{ id: region, value: 'A' }] });
      const uid = nextUid('renamed');
      const res = await admin.request(method, `${USERS}/${user.id}`, { user: { uid, first_name: 'New', hire_date: '2023-01-31', custom_fields: [{ id: region, value: 'B' }] } });
      expect(res.status).toBe(200);
      expect(res.body.users[0]).toMatchObject({ id: user.id, uid, first_name: 'New', last_name: 'Name', locale: 'fr', hire_date: '2023-01-31', roles: ['learner'] });
      expect(await t.db.query('SELECT value FROM identity.user_custom_field_values WHERE user_id = $1', [user.id])).toEqual([{ value: 'B' }]);
      const cleared = await admin.patch(`${USERS}/uid:${uid}`, { user: { locale: null, custom_fields: [{ id: region, value: null }] } });
      expect(cleared.body.users[0].locale).toBeNull();
      expect(await t.db.query('SELECT value FROM identity.user_custom_field_values WHERE user_id = $1', [user.id])).toEqual([]);
    });

    it('never undoes a concurrent role change or deletion, and sets a new custom field once under concurrent edits', async () => {
      const region = await customField(`Zone ${nextUid()}`);
      const users = await Promise.all(Array.from({ length: 12 }, () => createOk()));
      const answers = await Promise.all(
        users.flatMap((user, i) => [
          admin.patch(`${USERS}/${user.id}`, { user: { first_name: `Edited ${i}`, custom_fields: [{ id: region, value: `v${i}` }] } }),
          admin.patch(`${USERS}/${user.id}`, { user: { last_name: `Again ${i}`, custom_fields: [{ id: region, value: `v${i}` }] } }),
          i % 2 === 0 ? admin.put(`${USERS}/${user.id}/roles`, { roles: ['author', 'learner'] }) : admin.delete(`${USERS}/${user.id}`),
        ]),
      );
      // A PATCH after the deletion finds no user (404); nothing else but success.
      expect(answers.filter((r) => r.status !== 200 && r.status !== 204 && r.status !== 404).map((r) => [r.status, r.text])).toEqual([]);
      const rows = await t.db.query<{ id: number; roles: string[]; deleted: boolean }>('SELECT id, roles, deleted_at IS NOT NULL AS deleted FROM identity.users WHERE id = ANY ($1)', [users.map((u) => u.id)]);
      for (const [i, user] of users.entries()) {
        const row = rows.find((r) => r.id === user.id)!;
        expect(row).toEqual(i % 2 === 0 ? { id: user.id, roles: ['author', 'learner'], deleted: false } : { id: user.id, roles: ['learner'], deleted: true });
      }
    });

    it('answers 400 for taken uid or hris_id, own manager, mass assignment, empty or invalid bodies, changing nothing', async () => {
      const other = await createOk({ hris_id: `HX-${nextUid()}` });
      const [otherRow] = await t.db.query<{ hris_id: string }>('SELECT hris_id FROM identity.users WHERE id = $1', [other.id]);
      const user = await createOk({ first_name: 'Stable' });
      const before = (await admin.get(`${USERS}/${user.id}`)).body;
      const cases: [unknown, string][] = [
        [{ user: { uid: other.uid } }, 'USER_ALREADY_EXISTS'],
        [{ user: { hris_id: otherRow.hris_id } }, 'HRIS_ID_TAKEN'],
        [{ user: { manager_id: user.id } }, 'MANAGER_IS_SELF'],
        [{ user: { manager_id: `uid:${user.uid}` } }, 'MANAGER_IS_SELF'],
        [{ user: { roles: ['admin'] } }, 'VALIDATION_FAILED'],
        [{ user: { id: 5 } }, 'VALIDATION_FAILED'],
        [{ user: { account_id: 5 } }, 'VALIDATION_FAILED'],
        [{ user: {} }, 'EMPTY_UPDATE'],
        [{ user: { uid: null } }, 'VALIDATION_FAILED'],
        [{ user: { hire_date: '2023-02-29' } }, 'VALIDATION_FAILED'],
        [{ user: { custom_fields: [{ id: '999999', value: 'x' }] } }, 'CUSTOM_FIELD_NOT_FOUND'],
        [{ users: [{ first_name: 'x' }] }, 'VALIDATION_FAILED'],
      ];
      for (const [body, code] of cases) {
        const res = await admin.patch(`${USERS}/${user.id}`, body);
        expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code });
      }
      expect((await admin.get(`${USERS}/${user.id}`)).body).toEqual(before);
    });

    it('answers 404 for unknown, deleted and foreign users', async () => {
      const gone = await createOk();
      await admin.delete(`${USERS}/${gone.id}`);
      expect((await admin.patch(`${USERS}/999999`, { user: { first_name: 'x' } })).status).toBe(404);
      expect((await admin.patch(`${USERS}/${gone.id}`, { user: { first_name: 'x' } })).status).toBe(404);
      const mine = await createOk({ first_name: 'Mine' });
      expect((await admin.as(stranger.token).put(`${USERS}/${mine.id}`, { user: { first_name: 'Stolen' } })).status).toBe(404);
      expect((await admin.get(`${USERS}/${mine.id}`)).body.users[0].first_name).toBe('Mine');
    });
  });

  describe('delete', () => {
    const consumeDeleted = async (seen: CloudEvent[], durable: string) =>
      t.system.bus.events.consume({ durable, types: ['identity.user.deleted'], maxDeliver: 3, backoffMs: [100] }, async (event) => void seen.push(event));

    it('soft-deletes (204), publishes identity.user.deleted, revokes the tokens; the user shows deleted and leaves the list', async () => {
      const seen: CloudEvent[] = [];
      const sub = await consumeDeleted(seen, 'e2e-user-deleted');
      try {
        const victim = await t.factory.user(accountId, ['author']);
        expect((await admin.delete(`${USERS}/${victim.userId}`)).status).toBe(204);
        const shown = await admin.get(`${USERS}/${victim.userId}`);
        expect(shown.body.users[0].deleted_at).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
        expect(shown.body.users[0].meta.can_masquerade).toBe(false);
        expect((await admin.get(`${USERS}?per_page=1000`)).body.users.map((u: { id: number }) => u.id)).not.toContain(victim.userId);
        expect((await admin.get(`${USERS}?per_page=1000&with_deleted=true`)).body.users.map((u: { id: number }) => u.id)).toContain(victim.userId);
        const onlyDeleted = (await admin.get(`${USERS}?per_page=1000&only_deleted=true`)).body.users;
        expect(onlyDeleted.map((u: { id: number }) => u.id)).toContain(victim.userId);
        expect(onlyDeleted.every((u: { deleted_at: string | null }) => u.deleted_at !== null)).toBe(true);
        expect(await t.db.query('SELECT revoked_at IS NOT NULL AS revoked FROM identity.api_tokens WHERE user_id = $1', [victim.userId])).toEqual([{ revoked: true }]);
        const event = await eventually(async () => seen.find((e) => (e.data as { user_id: number }).user_id === victim.userId));
        expect(event).toMatchObject({ type: 'identity.user.deleted', source: '/identity', accountid: accountId, data: { user_id: victim.userId, uid: victim.uid } });
        expect((await admin.delete(`${USERS}/${victim.userId}`)).status).toBe(404);
      } finally {
        await sub.unsubscribe();
      }
    });

    it('kills a cached token of the deleted user on the very next request', async () => {
      const victim = await t.factory.user(accountId, ['author']);
      const api = admin.as(victim.token);
      expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(200);
      expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(200);
      expect((await admin.delete(`${USERS}/uid:${victim.uid}`)).status).toBe(204);
      expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(401);
    });

    it('answers 404 for unknown ids and uids and for users of another account', async () => {
      const mine = await createOk();
      expect((await admin.delete(`${USERS}/999999`)).status).toBe(404);
      expect((await admin.delete(`${USERS}/uid:no-such-user`)).status).toBe(404);
      expect((await admin.as(stranger.token).delete(`${USERS}/${mine.id}`)).status).toBe(404);
      expect((await admin.as(stranger.token).delete(`${USERS}/uid:${mine.uid}`)).status).toBe(404);
      expect((await admin.get(`${USERS}/${mine.id}`)).body.users[0].deleted_at).toBeNull();
      expect((await admin.delete(`${USERS}/${mine.id}`)).status).toBe(204);
    });

    it('refuses to delete yourself with 403', async () => {
      const res = await admin.delete(`${USERS}/${adminUserId}`);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CANNOT_DELETE_SELF');
      expect((await admin.get(`${USERS}/${adminUserId}`)).status).toBe(200);
      expect((await admin.delete(`${USERS}/uid:admin?async=true`)).status).toBe(403);
    });

    it('with async=true answers 204 at once, cuts access, and the worker finishes the deletion through an event', async () => {
      const seen: CloudEvent[] = [];
      const sub = await consumeDeleted(seen, 'e2e-user-deleted-async');
      try {
        const victim = await t.factory.user(accountId, ['author']);
        const api = admin.as(victim.token);
        expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(200);
        expect((await admin.delete(`${USERS}/${victim.userId}?async=true`)).status).toBe(204);
        expect((await api.get(AUTHOR_ENDPOINT)).status).toBe(401);
        const deletedAt = await eventually(async () => (await admin.get(`${USERS}/${victim.userId}`)).body.users[0].deleted_at ?? undefined);
        expect(deletedAt).toEqual(expect.any(String));
        await eventually(async () => seen.find((e) => (e.data as { user_id: number }).user_id === victim.userId));
        expect(seen.filter((e) => (e.data as { user_id: number }).user_id === victim.userId)).toHaveLength(1);
        expect((await admin.delete(`${USERS}/${victim.userId}?async=true`)).status).toBe(404);
      } finally {
        await sub.unsubscribe();
      }
    });

    it('answers 400 for a bad async value', async () => {
      expect((await admin.delete(`${USERS}/${learner.userId}?async=maybe`)).status).toBe(400);
    });
  });

  describe('hide', () => {
    it('hides a deleted user (204): gone from show, lists (even with_deleted), summary and delete', async () => {
      const user = await createOk();
      await admin.delete(`${USERS}/${user.id}`);
      const res = await admin.post(`${USERS}/${user.id}/hide`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await admin.get(`${USERS}/${user.id}`)).status).toBe(404);
      expect((await admin.get(`${USERS}/${user.id}/summary`)).status).toBe(404);
      expect((await admin.get(`${USERS}?with_deleted=true&per_page=1000`)).body.users.map((u: { id: number }) => u.id)).not.toContain(user.id);
      expect((await admin.get(`${USERS}?only_deleted=true&per_page=1000`)).body.users.map((u: { id: number }) => u.id)).not.toContain(user.id);
      expect((await admin.post(`${USERS}/${user.id}/hide`)).status).toBe(404);
      expect((await admin.delete(`${USERS}/${user.id}`)).status).toBe(404);
    });

    it('answers 400 for an active user, 403 for yourself, 404 for unknown and foreign users', async () => {
      const active = await createOk();
      const refused = await admin.post(`${USERS}/${active.id}/hide`);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('USER_NOT_DELETED');
      expect((await admin.get(`${USERS}/${active.id}`)).status).toBe(200);
      const self = await admin.post(`${USERS}/${adminUserId}/hide`);
      expect(self.status).toBe(403);
      expect(self.body.code).toBe('CANNOT_HIDE_SELF');
      expect((await admin.post(`${USERS}/999999/hide`)).status).toBe(404);
      const deleted = await createOk();
      await admin.delete(`${USERS}/${deleted.id}`);
      expect((await admin.as(stranger.token).post(`${USERS}/${deleted.id}/hide`)).status).toBe(404);
      expect((await admin.get(`${USERS}/${deleted.id}`)).status).toBe(200);
      expect((await admin.post(`${USERS}/${deleted.id}/hide`, { force: true })).status).toBe(400);
    });
  });

  describe('summary', () => {
    const empty = { completed_courses: 0, completed_programs: 0, completed_live_courses: 0, total_on_time: 0, total_overdue: 0, all: 0 };
    const summaryOf = async (id: number, query = '') => {
      const res = await admin.get(`${USERS}/${id}/summary${query}`);
      expect(res.status).toBe(200);
      return res.body.summary;
    };
    let enrollment = 1000;
    const course = (userId: number, completed_at: string, due_at: string | null, extra: Record<string, unknown> = { course_id: 7 }) =>
      completionEvent(accountId, 'catalog.enrollment.completed', { user_id: userId, enrollment_id: ++enrollment, completed_at, due_at, ...extra });
    const live = (userId: number, completed_at: string, due_at: string | null) =>
      completionEvent(accountId, 'scheduling.live_course_enrollment.completed', { user_id: userId, enrollment_id: ++enrollment, live_course_id: 3, completed_at, due_at });

    it('counts completion events as they arrive, by kind and timeliness, once per event', async () => {
      const user = await createOk();
      expect(await admin.get(`${USERS}/${user.id}/summary`)).toMatchObject({ status: 200, body: { summary: empty } });
      const events = [
        course(user.id, '2025-01-10T12:00:00Z', null),
        course(user.id, '2025-02-10T12:00:00Z', '2025-02-01T00:00:00Z'),
        course(user.id, '2025-03-10T12:00:00Z', '2025-03-11T00:00:00Z', { program_id: 4 }),
        live(user.id, '2025-03-31T23:59:59Z', '2025-03-31T23:59:59Z'),
      ];
      for (const event of events) await t.system.bus.events.publish(event);
      const expected = { completed_courses: 2, completed_programs: 1, completed_live_courses: 1, total_on_time: 3, total_overdue: 1, all: 4 };
      await eventually(async () => ((await summaryOf(user.id)).all === 4 ? true : undefined));
      expect(await summaryOf(user.id)).toEqual(expected);

      // A redelivery (same id) and a republished copy of an event count nothing more.
      await t.system.bus.events.publish(events[0]);
      await t.system.bus.events.publish({ ...events[1], time: new Date().toISOString() });
      const marker = course(user.id, '2025-04-01T00:00:00Z', null);
      await t.system.bus.events.publish(marker);
      await eventually(async () => ((await summaryOf(user.id)).all === 5 ? true : undefined));
      expect(await summaryOf(user.id)).toEqual({ ...expected, completed_courses: 3, total_on_time: 4, all: 5 });

      // Periods are whole UTC days, both ends inclusive.
      expect(await summaryOf(user.id, '?start_date=2025-02-10&end_date=2025-03-31')).toEqual({
        completed_courses: 1, completed_programs: 1, completed_live_courses: 1, total_on_time: 2, total_overdue: 1, all: 3,
      });
      expect((await summaryOf(user.id, '?start_date=2025-03-11')).all).toBe(2);
      expect((await summaryOf(user.id, '?end_date=2025-01-10')).all).toBe(1);
      expect(await summaryOf(user.id, '?start_date=2026-01-01')).toEqual(empty);
      expect((await admin.get(`${USERS}/uid:${user.uid}/summary`)).body.summary.all).toBe(5);
    });

    it('keeps counting a deleted user and keeps other users and accounts apart', async () => {
      const user = await createOk();
      const other = await createOk();
      await t.system.bus.events.publish(course(user.id, '2025-05-01T00:00:00Z', null));
      // Same user id, another account: must not count for this account's user.
      await t.system.bus.events.publish(completionEvent(stranger.accountId, 'catalog.enrollment.completed', { user_id: user.id, enrollment_id: ++enrollment, course_id: 1, completed_at: '2025-05-01T00:00:00Z', due_at: null }));
      await eventually(async () => ((await summaryOf(user.id)).all === 1 ? true : undefined));
      await admin.delete(`${USERS}/${user.id}`);
      expect((await summaryOf(user.id)).all).toBe(1);
      expect(await summaryOf(other.id)).toEqual(empty);
    });

    it('dead-letters an invalid completion event and counts nothing for it', async () => {
      const user = await createOk();
      const bad = completionEvent(accountId, 'catalog.enrollment.completed', { user_id: user.id, enrollment_id: ++enrollment, course_id: 'seven', completed_at: 'yesterday' });
      await t.system.bus.events.publish(bad);
      const letter = await eventually(async () => (await t.system.bus.events.deadLetters('identity-user-completions')).find((d) => d.event.id === bad.id), 30_000);
      expect(letter.error).toMatch(/invalid catalog.enrollment.completed/);
      expect(await summaryOf(user.id)).toEqual(empty);
    }, 40_000);

    it('answers 400 for bad dates or a start after the end, 404 for unknown and foreign users', async () => {
      const user = await createOk();
      for (const query of ['?start_date=2025-02-30', '?end_date=tomorrow', '?start_date=2025-03-02&end_date=2025-03-01', '?other=1']) {
        expect((await admin.get(`${USERS}/${user.id}/summary${query}`)).status).toBe(400);
      }
      expect((await admin.get(`${USERS}/${user.id}/summary?start_date=2025-03-01&end_date=2025-03-01`)).status).toBe(200);
      expect((await admin.get(`${USERS}/${user.id}/summary?start_date=0000-01-01`)).status).toBe(400);
      expect((await admin.get(`${USERS}/999999/summary`)).status).toBe(404);
      expect((await admin.as(stranger.token).get(`${USERS}/${user.id}/summary`)).status).toBe(404);
    });
  });

  describe('roles', () => {
    const setRoles = (ref: string | number, roles: unknown, api: ApiClient = admin) => api.put(`${USERS}/${ref}/roles`, { roles });

    it('replaces the roles, and the change counts from the next request with an already cached token', async () => {
      const person = await t.factory.user(accountId, ['learner']);
      const personApi = admin.as(person.token);
      expect((await personApi.get(AUTHOR_ENDPOINT)).status).toBe(403); // principal cached as a learner
      const granted = await setRoles(person.userId, ['author', 'learner']);
      expect(granted.status).toBe(200);
      expect(granted.body.users[0]).toMatchObject({ id: person.userId, roles: ['author', 'learner'] });
      expect((await personApi.get(AUTHOR_ENDPOINT)).status).toBe(200);
      expect((await setRoles(`uid:${person.uid}`, ['learner'])).body.users[0].roles).toEqual(['learner']);
      expect((await personApi.get(AUTHOR_ENDPOINT)).status).toBe(403);
      expect((await admin.get(`${USERS}/${person.userId}`)).body.users[0].roles).toEqual(['learner']);
    });

    it('records identity.user.roles_changed through the outbox', async () => {
      const person = await t.factory.user(accountId, ['learner']);
      await setRoles(person.userId, ['support', 'author']);
      const rows = await t.db.query<{ payload: { data: { user_id: number; roles: string[] } } }>(
        "SELECT payload FROM identity.outbox WHERE type = 'identity.user.roles_changed' AND (payload->'data'->>'user_id')::int = $1",
        [person.userId],
      );
      expect(rows.map((r) => r.payload.data.roles)).toEqual([['author', 'support']]);
    });

    it('refuses to drop your own admin role, and lets you keep it', async () => {
      const res = await setRoles(adminUserId, ['author']);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CANNOT_DEMOTE_SELF');
      expect((await setRoles(adminUserId, ['admin', 'author'])).status).toBe(200);
      expect((await admin.get(AUTHOR_ENDPOINT)).status).toBe(200);
    });

    it('keeps an administrator when the last two demote or delete each other at once', async () => {
      for (const remove of ['demote', 'delete'] as const) {
        const account = await t.factory.account();
        const [a, b] = [await t.factory.user(account, ['admin']), await t.factory.user(account, ['admin'])];
        const act = (by: TestUser, whom: TestUser) =>
          remove === 'demote' ? setRoles(whom.userId, ['learner'], admin.as(by.token)) : admin.as(by.token).delete(`${USERS}/${whom.userId}`);
        const answers = await Promise.all([act(a, b), act(b, a)]);
        const admins = await t.db.query('SELECT id FROM identity.users WHERE account_id = $1 AND $2 = ANY (roles) AND deleted_at IS NULL', [account, 'admin']);
        expect(admins).toHaveLength(1);
        // One succeeded; the other was refused, as the last administrator's (409) or as no longer an administrator's (401/403).
        expect(answers.map((r) => r.status).filter((status) => status < 300)).toHaveLength(1);
        const refused = answers.find((r) => r.status >= 400)!;
        expect([401, 403, 409]).toContain(refused.status);
        if (refused.status === 409) expect(refused.body.code).toBe('LAST_ADMIN');
      }
    });

    it.each([
      ['an unknown role', ['learner', 'owner']],
      ['no roles', []],
      ['a repeated role', ['author', 'author']],
      ['not an array', 'admin'],
    ])('answers 400 for %s, changing nothing', async (_case, roles) => {
      const person = await t.factory.user(accountId, ['learner']);
      expect((await setRoles(person.userId, roles)).status).toBe(400);
      expect((await admin.get(`${USERS}/${person.userId}`)).body.users[0].roles).toEqual(['learner']);
    });

    it('answers 401, 403 to non-administrators, and 404 for unknown and foreign users', async () => {
      const person = await t.factory.user(accountId, ['learner']);
      expect((await setRoles(person.userId, ['admin'], admin.as(undefined))).status).toBe(401);
      expect((await setRoles(person.userId, ['admin'], admin.as(author.token))).status).toBe(403);
      expect((await setRoles(person.userId, ['admin'], admin.as(learner.token))).status).toBe(403);
      expect((await setRoles(999_999, ['author'])).status).toBe(404);
      expect((await setRoles(person.userId, ['admin'], admin.as(stranger.token))).status).toBe(404);
      expect((await admin.get(`${USERS}/${person.userId}`)).body.users[0].roles).toEqual(['learner']);
    });
  });
});
