import type { CloudEvent } from '@lms/contracts';
import { type ApiClient, eventually, holdingLock, type TestUser, uniqueName } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

describe('custom fields and user fields, end to end (gateway → NATS → identity → Postgres)', () => {
  let t: TestSystem;
  let admin: ApiClient;
  let accountId: number;
  let author: TestUser;
  let learner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
    ({ accountId, author, learner, stranger } = await t.factory.cast());
  });
  afterAll(() => t?.close());

  const create = (api: ApiClient, ...names: string[]) => api.post('/api/author/custom_fields', { custom_fields: names.map((name) => ({ name })) });

  describe('authentication and audience', () => {
    it('answers 401 problem+json without a token, with a bad token and with a malformed header', async () => {
      for (const res of [
        await admin.as(undefined).get('/api/author/custom_fields'),
        await admin.as('not-a-token').get('/api/author/custom_fields'),
        await admin.get('/api/author/custom_fields', { authorization: 'Basic abc' }),
      ]) {
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({ status: 401, title: expect.any(String) });
      }
    });

    it('answers 403 to a learner on author endpoints and admits authors', async () => {
      expect((await admin.as(learner.token).get('/api/author/custom_fields')).status).toBe(403);
      expect((await admin.as(learner.token).get('/api/author/user_fields')).status).toBe(403);
      expect((await create(admin.as(learner.token), 'Nope')).status).toBe(403);
      expect((await admin.as(author.token).get('/api/author/custom_fields')).status).toBe(200);
    });
  });

  describe('create', () => {
    it('creates every element of the array and answers 201 with the records', async () => {
      const res = await create(admin, 'Region', 'Cost center');
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        meta: {},
        custom_fields: [
          { id: expect.stringMatching(/^\d+$/), name: 'Region' },
          { id: expect.stringMatching(/^\d+$/), name: 'Cost center' },
        ],
      });
    });

    it.each([
      ['an empty array', { custom_fields: [] }, 'custom_fields'],
      ['a missing name', { custom_fields: [{}] }, 'custom_fields[0].name'],
      ['a blank name', { custom_fields: [{ name: '' }] }, 'custom_fields[0].name'],
      ['a name of spaces alone (stored trimmed, it would be "")', { custom_fields: [{ name: ' \t ' }] }, 'custom_fields[0].name'],
      ['a non-string name (a number is its text, docs/compatibility.md; a boolean is not)', { custom_fields: [{ name: true }] }, 'custom_fields[0].name'],
      ['an unknown field in an element', { custom_fields: [{ name: 'x', account_id: 99 }] }, 'custom_fields[0].account_id'],
      ['an unknown top-level field', { custom_fields: [{ name: 'y' }], id: 5 }, 'id'],
      ['no custom_fields key', { custom_field: { name: 'z' } }, 'custom_fields'],
    ])('answers 400 with field errors for %s, and stores nothing', async (_case, body, field) => {
      const before = await t.factory.count('identity.custom_fields');
      const res = await admin.post('/api/author/custom_fields', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      expect(await t.factory.count('identity.custom_fields')).toBe(before);
    });

    it('answers 400 for malformed JSON and for a body that is not an object', async () => {
      expect((await admin.request('POST', '/api/author/custom_fields', '{"custom_fields": [')).status).toBe(400);
      expect((await admin.request('POST', '/api/author/custom_fields', '[1,2]')).status).toBe(400);
    });

    it('rejects a taken name (any case) and a name repeated in one request, all or nothing', async () => {
      await create(admin, 'Badge');
      const taken = await create(admin, 'Fresh one', 'BADGE');
      expect(taken.status).toBe(400);
      expect(taken.body).toMatchObject({ code: 'CUSTOM_FIELD_NAME_TAKEN', detail: 'A custom field named "BADGE" already exists.', errors: [{ field: 'custom_fields[1].name' }] });
      const renamed = await admin.patch(`/api/author/custom_fields/${(await create(admin, 'Other badge')).body.custom_fields[0].id}`, { custom_field: { name: 'badge' } });
      expect(renamed.body).toMatchObject({ code: 'CUSTOM_FIELD_NAME_TAKEN', errors: [{ field: 'custom_field.name' }] });
      const repeated = await create(admin, 'Twin', 'twin');
      expect(repeated.status).toBe(400);
      const names = (await admin.get('/api/author/custom_fields?includes[]=name&per_page=1000')).body.custom_fields.map((f: { name: string }) => f.name);
      expect(names).not.toContain('Fresh one');
      expect(names).not.toContain('Twin');
    });

    it('lets exactly one of two concurrent creates of the same name win', async () => {
      const results = await Promise.all([create(admin, 'Raced'), create(admin, 'Raced'), create(admin, 'raced')]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    });

    it('answers the loser of two creates naming the same fields in other orders with the taken name (400), never a deadlock (409)', async () => {
      const [a, b, k] = ['A', 'B', 'K'].map((letter) => uniqueName(`Crossed ${letter}`));
      // A transaction of the test's own holds name K, so the first create (A, K, B) waits there; the second
      // (B, A) meanwhile asks for its names. Each inserting as it went, the first, let on, would wait for B and
      // the second for A: a deadlock, one of them a 409 CONCURRENT_CHANGE. The second finds B, its first name, taken.
      const [first, second] = await holdingLock(t.db.url, 'INSERT INTO identity.custom_fields (account_id, name) VALUES ($1, $2)', [accountId, k], async (held) => {
        const one = create(admin, a, k, b);
        await held.waiters(1);
        const two = create(admin, b, a);
        await held.waiters(2);
        await held.release('rollback');
        return Promise.all([one, two]);
      });
      expect(first.status).toBe(201);
      expect(first.body.custom_fields.map((f: { name: string }) => f.name)).toEqual([a, k, b]);
      expect(second.status).toBe(400);
      expect(second.body).toMatchObject({ code: 'CUSTOM_FIELD_NAME_TAKEN', errors: [{ field: 'custom_fields[0].name' }] });
    });

    it('gives the fields of one create ids in the request\'s order, whatever their names', async () => {
      const names = ['Zeta', 'Alpha', 'Mu'].map((n) => uniqueName(`${n} order`));
      const created = (await create(admin, ...names)).body.custom_fields as Array<{ id: string; name: string }>;
      expect(created.map((f) => f.name)).toEqual(names);
      expect(created.map((f) => Number(f.id))).toEqual(created.map((f) => Number(f.id)).sort((x, y) => x - y));
    });

    it('never brings back a field deleted while it is renamed', async () => {
      const ids = (await create(admin, ...Array.from({ length: 20 }, (_, i) => `Renamed race ${i}`))).body.custom_fields.map((f: { id: string }) => f.id);
      const answers = await Promise.all(
        ids.flatMap((id: string, i: number) => [admin.patch(`/api/author/custom_fields/${id}`, { custom_field: { name: `Renamed race ${i} again` } }), admin.delete(`/api/author/custom_fields/${id}`)]),
      );
      expect(answers.filter((r) => ![200, 204, 404].includes(r.status)).map((r) => [r.status, r.text])).toEqual([]);
      expect(await t.db.query('SELECT id FROM identity.custom_fields WHERE id = ANY ($1::int[])', [ids])).toEqual([]);
    });

    it('answers a user write naming a field deleted meanwhile as an unknown field, never a conflict', async () => {
      const ids = (await create(admin, ...Array.from({ length: 8 }, (_, i) => `Deleted under a write ${i}`))).body.custom_fields.map((f: { id: string }) => f.id);
      const user = await t.factory.user(accountId, ['learner']);
      const answers = await Promise.all(
        ids.flatMap((id: string, i: number) => [
          admin.patch(`/api/admin/users/${user.userId}`, { user: { custom_fields: [{ id, value: `v${i}` }] } }),
          admin.post('/api/admin/users', { users: [{ uid: uniqueName('cf-race'), first_name: 'A', last_name: 'B', custom_fields: [{ id, value: `v${i}` }] }] }),
          admin.delete(`/api/author/custom_fields/${id}`),
        ]),
      );
      const unexpected = answers.filter((r) => ![200, 201, 204].includes(r.status) && r.body?.code !== 'CUSTOM_FIELD_NOT_FOUND');
      expect(unexpected.map((r) => [r.status, r.text])).toEqual([]);
    });

    it('publishes identity.custom_field.created through the outbox', async () => {
      const seen: CloudEvent[] = [];
      const sub = await t.system.bus.events.consume(
        { durable: 'e2e-custom-field-created', types: ['identity.custom_field.created'], maxDeliver: 3, backoffMs: [100] },
        async (event) => void seen.push(event),
      );
      try {
        const res = await create(admin, 'Evented');
        const id = Number(res.body.custom_fields[0].id);
        const event = await eventually(async () => seen.find((e) => (e.data as { id: number }).id === id));
        expect(event).toMatchObject({ type: 'identity.custom_field.created', source: '/identity', data: { id, name: 'Evented' } });
        expect(event.accountid).toBe(accountId);
      } finally {
        await sub.unsubscribe();
      }
    });
  });

  describe('list and show', () => {
    it('lists ids only, and names with includes[]=name (or includes=name)', async () => {
      await create(admin, 'Listed');
      const bare = await admin.get('/api/author/custom_fields');
      expect(bare.status).toBe(200);
      expect(bare.body.meta).toEqual({});
      expect(bare.body.custom_fields.length).toBeGreaterThan(0);
      for (const field of bare.body.custom_fields) expect(Object.keys(field)).toEqual(['id']);
      for (const query of ['includes[]=name', 'includes=name']) {
        const named = await admin.get(`/api/author/custom_fields?${query}`);
        expect(named.body.custom_fields).toEqual(expect.arrayContaining([{ id: expect.any(String), name: 'Listed' }]));
      }
    });

    it('answers 400 for an include other than name and for bad paging', async () => {
      expect((await admin.get('/api/author/custom_fields?includes[]=secret')).status).toBe(400);
      expect((await admin.get('/api/author/custom_fields?per_page=0')).status).toBe(400);
      expect((await admin.get('/api/author/custom_fields?page=0')).status).toBe(400);
      expect((await admin.get('/api/author/custom_fields?page=abc')).status).toBe(400);
    });

    it('pages with page/per_page and an RFC 8288 Link header', async () => {
      const all = (await admin.get('/api/author/custom_fields?per_page=1000')).body.custom_fields;
      expect(all.length).toBeGreaterThanOrEqual(3);
      const first = await admin.get('/api/author/custom_fields?per_page=1');
      expect(first.body.custom_fields).toEqual([all[0]]);
      const link = first.headers.get('link') ?? '';
      expect(link).toMatch(/rel="next"/);
      expect(link).toMatch(/rel="last"/);
      expect(link).toMatch(/rel="first"/);
      expect(link).not.toMatch(/rel="prev"/);
      const second = await admin.get('/api/author/custom_fields?per_page=1&page=2');
      expect(second.body.custom_fields).toEqual([all[1]]);
      expect(second.headers.get('link')).toMatch(/rel="prev"/);
    });

    it('shows one field in a one-element array, with an ETag honoured by If-None-Match', async () => {
      const id = (await create(admin, 'Shown')).body.custom_fields[0].id;
      const res = await admin.get(`/api/author/custom_fields/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ meta: {}, custom_fields: [{ id, name: 'Shown' }] });
      const etag = res.headers.get('etag');
      expect(etag).toBeTruthy();
      const cached = await admin.get(`/api/author/custom_fields/${id}`, { 'if-none-match': etag! });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
      await admin.patch(`/api/author/custom_fields/${id}`, { custom_field: { name: 'Shown again' } });
      expect((await admin.get(`/api/author/custom_fields/${id}`, { 'if-none-match': etag! })).status).toBe(200);
    });

    it('answers 404 for an unknown id and 400 for an id that is not an integer', async () => {
      expect((await admin.get('/api/author/custom_fields/999999')).status).toBe(404);
      expect((await admin.get('/api/author/custom_fields/abc')).status).toBe(400);
    });
  });

  describe('update', () => {
    it.each(['PATCH', 'PUT'])('renames with %s and the singular custom_field key', async (method) => {
      const id = (await create(admin, `Before ${method}`)).body.custom_fields[0].id;
      const res = await admin.request(method, `/api/author/custom_fields/${id}`, { custom_field: { name: `After ${method}` } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ meta: {}, custom_fields: [{ id, name: `After ${method}` }] });
      expect((await admin.get(`/api/author/custom_fields/${id}`)).body.custom_fields[0].name).toBe(`After ${method}`);
    });

    it('answers 400 for a missing or invalid body, a taken name or unknown fields, changing nothing', async () => {
      const [a, b] = (await create(admin, 'Keep A', 'Keep B')).body.custom_fields;
      for (const body of [
        {},
        { custom_field: {} },
        { custom_field: { name: '' } },
        { custom_field: { name: '   ' } },
        { custom_fields: [] },
        { custom_fields: null },
        { custom_fields: [{ name: 'x' }, { name: 'y' }] },
        { custom_fields: { name: 'x' } },
        { custom_field: { name: 'Keep B' } },
        { custom_field: { name: 'ok', id: 1 } },
      ]) {
        expect((await admin.patch(`/api/author/custom_fields/${a.id}`, body)).status).toBe(400);
      }
      expect((await admin.get(`/api/author/custom_fields/${a.id}`)).body.custom_fields[0].name).toBe('Keep A');
      expect(b.name).toBe('Keep B');
    });

    it("renames with the spec's listed parameter too: custom_fields, a one-element array", async () => {
      const [field] = (await create(admin, 'Listed key')).body.custom_fields;
      const res = await admin.put(`/api/author/custom_fields/${field.id}`, { custom_fields: [{ name: 'Listed key renamed' }] });
      expect([res.status, res.body.custom_fields]).toEqual([200, [{ id: field.id, name: 'Listed key renamed' }]]);
    });

    it('answers 404 for an unknown id', async () => {
      expect((await admin.put('/api/author/custom_fields/999999', { custom_field: { name: 'Ghost' } })).status).toBe(404);
    });
  });

  describe('delete', () => {
    it('answers the deleted record, after which the field is gone', async () => {
      const id = (await create(admin, 'Doomed')).body.custom_fields[0].id;
      const res = await admin.delete(`/api/author/custom_fields/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ meta: {}, custom_fields: [{ id, name: 'Doomed' }] });
      expect((await admin.get(`/api/author/custom_fields/${id}`)).status).toBe(404);
      expect((await admin.delete(`/api/author/custom_fields/${id}`)).status).toBe(404);
    });

    it('answers 400 for an id that is not an integer', async () => {
      expect((await admin.delete('/api/author/custom_fields/1.5')).status).toBe(400);
    });
  });

  describe('tenant isolation', () => {
    it("answers 404 for another account's field and never lists it", async () => {
      const mine = (await create(admin, 'Private')).body.custom_fields[0].id;
      const other = admin.as(stranger.token);
      expect((await other.get(`/api/author/custom_fields/${mine}`)).status).toBe(404);
      expect((await other.patch(`/api/author/custom_fields/${mine}`, { custom_field: { name: 'Stolen' } })).status).toBe(404);
      expect((await other.delete(`/api/author/custom_fields/${mine}`)).status).toBe(404);
      const theirs = await other.get('/api/author/custom_fields?includes[]=name&per_page=1000');
      expect(theirs.body.custom_fields.map((f: { id: string }) => f.id)).not.toContain(mine);
      // Same name in another account is fine: uniqueness is per account.
      expect((await create(other, 'Private')).status).toBe(201);
      expect((await admin.get(`/api/author/custom_fields/${mine}`)).body.custom_fields[0].name).toBe('Private');
    });
  });

  describe('user fields', () => {
    it('lists built-in fields as user_field_value and custom fields as custom_field_value', async () => {
      const id = (await create(admin, 'Shoe size')).body.custom_fields[0].id;
      const res = await admin.get('/api/author/user_fields?includes[]=name&per_page=1000');
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({});
      expect(res.body.user_fields).toEqual(
        expect.arrayContaining([
          { id: 'locale', name: 'Locale', type: 'user_field_value' },
          { id: 'hire_date', name: 'Hire date', type: 'user_field_value' },
          { id, name: 'Shoe size', type: 'custom_field_value' },
        ]),
      );
      const bare = await admin.get('/api/author/user_fields');
      for (const field of bare.body.user_fields) expect(Object.keys(field).sort()).toEqual(['id', 'type']);
      const other = await admin.as(stranger.token).get('/api/author/user_fields?per_page=1000');
      expect(other.body.user_fields.map((f: { id: string }) => f.id)).not.toContain(id);
    });

    it('pages across built-in and custom fields without gaps or repeats', async () => {
      const all = (await admin.get('/api/author/user_fields?per_page=1000')).body.user_fields;
      const pages = [];
      for (let page = 1; page <= Math.ceil(all.length / 4); page++) pages.push(...(await admin.get(`/api/author/user_fields?per_page=4&page=${page}`)).body.user_fields);
      expect(pages).toEqual(all);
    });
  });
});
