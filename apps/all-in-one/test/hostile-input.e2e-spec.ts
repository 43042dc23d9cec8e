import type { ApiClient, ApiResponse } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

// Issue 11, findings 5, 7 and 8: what a careless client or an attacker sends must be a 4xx that changes
// nothing, and every valid value must be usable where the API takes it.

const FIELDS = '/api/author/custom_fields';
const USERS = '/api/admin/users';
const TYPES = '/api/admin/notification_types';
const PROFILE = '/api/admin/import_profile';

const expectRefused = (res: ApiResponse, status = 400) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
};

describe('hostile and careless input through the gateway', () => {
  let t: TestSystem;
  let admin: ApiClient;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
  });
  afterAll(() => t?.close());

  const count = async (sql: string, values: unknown[] = []) => Number((await t.db.query<{ n: string }>(sql, values))[0].n);

  describe('text no database can store and absurd shapes are a 400, never a 500 (finding 5)', () => {
    it('refuses a NUL character in any text field, storing nothing', async () => {
      const before = await count('SELECT count(*) AS n FROM identity.custom_fields');
      const res = await admin.post(FIELDS, { custom_fields: [{ name: 'Region\u0000' }] });
      expectRefused(res);
      expect(res.body.errors).toEqual([{ field: 'custom_fields[0].name', message: expect.stringContaining('NUL') }]);
      expectRefused(await admin.post(USERS, { users: [{ uid: 'nul-user', first_name: 'A\u0000' }] }));
      expect(await count('SELECT count(*) AS n FROM identity.custom_fields')).toBe(before);
      expect(await count("SELECT count(*) AS n FROM identity.users WHERE uid = 'nul-user'")).toBe(0);
    });

    it('refuses a NUL character in the query (search) and in a path parameter', async () => {
      expectRefused(await admin.get(`${USERS}?search=a%00b`));
      const res = await admin.get(`${USERS}/uid:a%00b`);
      expectRefused(res);
      expect(res.body.errors[0].field).toBe('id');
    });

    it('refuses a lone UTF-16 surrogate in a name', async () => {
      const res = await admin.post(USERS, { users: [{ uid: 'surrogate-user', first_name: 'Ann\ud800' }] });
      expectRefused(res);
      expect(res.body.errors).toEqual([{ field: 'users[0].first_name', message: expect.stringContaining('surrogate') }]);
      // A well-formed pair (an emoji) is text like any other.
      expect((await admin.post(USERS, { users: [{ uid: 'emoji-user', first_name: 'Ann \ud83d\ude00' }] })).status).toBe(200);
      expect(await count("SELECT count(*) AS n FROM identity.users WHERE uid = 'surrogate-user'")).toBe(0);
    });

    it('refuses JSON nested 2,000 deep', async () => {
      const deep = `{"custom_fields":${'['.repeat(2000)}${']'.repeat(2000)}}`;
      const res = await admin.post(FIELDS, deep);
      expectRefused(res);
      expect(res.body.errors[0].message).toContain('nesting deeper than');
    });

    it('refuses an array longer than allowed, at any depth, before validating its items', async () => {
      // 300,000 empty course templates fit in 1 MiB; validating each before the size check held the gateway 44 s.
      const before = await count('SELECT count(*) AS n FROM catalog.course_templates');
      const res = await admin.post('/api/author/course_templates', `{"course_templates":[${Array(300_000).fill('{}').join(',')}]}`);
      expectRefused(res);
      expect(res.body.errors).toEqual([{ field: 'course_templates', message: 'course_templates must contain no more than 100 elements' }]);
      // Inside an item, as sent within the body limit.
      const tags = await admin.post('/api/author/course_templates', { course_templates: [{ title: 'Tagged', tags: Array.from({ length: 20_000 }, (_, i) => `t${i}`) }] });
      expectRefused(tags);
      expect(tags.body.errors).toEqual([{ field: 'course_templates[0].tags', message: expect.stringContaining('must contain no more than') }]);
      expect(await count('SELECT count(*) AS n FROM catalog.course_templates')).toBe(before);
    });

    it('refuses a page number beyond what an integer holds', async () => {
      const res = await admin.get(`${USERS}?page=99999999999999999999`);
      expectRefused(res);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['page']));
      expectRefused(await admin.get(`${FIELDS}?page=99999999999999999999&per_page=1000`));
    });
  });

  describe('prototype names are not fields (findings 5 and 7)', () => {
    it('refuses a constructor key in the body, in the query and in a nested object', async () => {
      expectRefused(await admin.post(FIELDS, { custom_fields: [{ name: 'Proto' }], constructor: { name: 'x' } }));
      expectRefused(await admin.post(FIELDS, { custom_fields: [{ name: 'Proto', constructor: 1 }] }));
      expectRefused(await admin.get(`${FIELDS}?constructor=1`));
      expectRefused(await admin.get(`${FIELDS}?toString=1`));
      expect(await count("SELECT count(*) AS n FROM identity.custom_fields WHERE name = 'Proto'")).toBe(0);
    });

    it('refuses constructor, toString and empty channel maps on notification types, changing nothing', async () => {
      const before = (await admin.get(`${TYPES}/course_assigned`)).body;
      for (const channels of [JSON.parse('{"constructor": true}'), JSON.parse('{"toString": true}'), JSON.parse('{"__proto__": {"email": false}}'), {}]) {
        const res = await admin.patch(`${TYPES}/course_assigned`, { channels });
        expect([400, 422]).toContain(res.status);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect((await admin.patch(`${TYPES}/course_assigned`, { channels: {} })).status).toBe(422);
      expect((await admin.get(`${TYPES}/course_assigned`)).body).toEqual(before);
      expect(await count("SELECT count(*) AS n FROM identity.outbox WHERE type = 'identity.notification_type.updated'")).toBe(0);
    });

    it('refuses a constructor key in the import profile columns', async () => {
      expectRefused(await admin.patch(PROFILE, { columns: JSON.parse('{"constructor": ["uid"]}') }));
      expectRefused(await admin.patch(PROFILE, { columns: JSON.parse('{"0": ["uid"], "hasOwnProperty": ["email"]}') }));
    });
  });

  describe('long uids in paths (finding 8)', () => {
    it('finds a user by a 150-character uid and by a 255-character multi-byte uid', async () => {
      for (const uid of ['u'.repeat(150), 'é'.repeat(200) + '😀'.repeat(55)]) {
        const created = await admin.post(USERS, { users: [{ uid }] });
        expect(created.status).toBe(200);
        const res = await admin.get(`${USERS}/uid:${encodeURIComponent(uid)}`);
        expect(res.status).toBe(200);
        expect(res.body.users[0].uid).toBe(uid);
      }
    });

    it('answers a longer path parameter than any uid with a problem, not a bare 414', async () => {
      const res = await admin.get(`${USERS}/uid:${'x'.repeat(5000)}`);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });
  });
});
