import type { CloudEvent } from '@lms/contracts';
import { type ApiClient, eventually, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const PROFILE = '/api/admin/import_profile';
const FILE = '/api/admin/import_profile/file';


describe('import profile, end to end (gateway → NATS → identity → Postgres)', () => {
  let t: TestSystem;
  let admin: ApiClient;
  let accountId: number;
  let author: TestUser;
  let learner: TestUser;
  let stranger: TestUser;
  let regionId: number;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
    ({ accountId, author, learner, stranger } = await t.factory.cast());
    const created = await admin.post('/api/author/custom_fields', { custom_fields: [{ name: 'Region' }, { name: 'Cost, "center"' }] });
    regionId = Number(created.body.custom_fields[0].id);
  });
  afterAll(() => t?.close());

  const storedRow = async (account: number) =>
    (await t.db.query<{ csv_password_encrypted: string | null; columns: unknown }>('SELECT csv_password_encrypted, columns FROM identity.import_profiles WHERE account_id = $1', [account]))[0];

  describe('authentication and audience', () => {
    it('answers 401 without a token on all three endpoints', async () => {
      const anonymous = admin.as(undefined);
      for (const res of [await anonymous.get(PROFILE), await anonymous.patch(PROFILE, { has_headers: true }), await anonymous.put(PROFILE, {}), await anonymous.get(FILE)]) {
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    });

    it('answers 403 to learners and authors, and changes nothing', async () => {
      for (const token of [learner.token, author.token]) {
        const other = admin.as(token);
        expect((await other.get(PROFILE)).status).toBe(403);
        expect((await other.patch(PROFILE, { csv_time: '01:00' })).status).toBe(403);
        expect((await other.get(FILE)).status).toBe(403);
      }
      expect((await admin.get(PROFILE)).body.csv_time).toBeNull();
    });
  });

  describe('show', () => {
    it('creates the profile with defaults on first access and answers it directly, without an envelope', async () => {
      const res = await admin.get(PROFILE);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        csv_url: null,
        csv_user: null,
        csv_password_set: false,
        csv_days: [false, false, false, false, false, false, false],
        csv_time: null,
        has_headers: true,
        import_columns: [],
      });
      expect((await admin.get(PROFILE)).body.id).toBe(res.body.id);
    });

    it('creates exactly one profile when an account first asks several times at once', async () => {
      const fresh = await t.factory.user(await t.factory.account(), ['admin']);
      const results = await Promise.all(Array.from({ length: 5 }, () => admin.as(fresh.token).get(PROFILE)));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(await t.db.query('SELECT id FROM identity.import_profiles WHERE account_id = $1', [fresh.accountId])).toHaveLength(1);
    });
  });

  describe('update', () => {
    it.each(['PATCH', 'PUT'])('stores the spec body with %s and answers the profile, never the password', async (method) => {
      const password = `pw-${method}-Zq9!`;
      const res = await admin.request(method, PROFILE, {
        csv_url: 'sftp://files.example.test/hr/users.csv',
        csv_user: 'importer',
        csv_password: password,
        has_headers: false,
        csv_days: [false, true, false, true, false, true, false],
        csv_time: '23:45',
        columns: { '0': ['uid'], '1': ['email', 'first_name'], '3': ['Region'] },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        csv_url: 'sftp://files.example.test/hr/users.csv',
        csv_user: 'importer',
        csv_password_set: true,
        csv_days: [false, true, false, true, false, true, false],
        csv_time: '23:45',
        has_headers: false,
        import_columns: [
          { custom_field_id: null, name: 'uid', position: 0, primary_field: true },
          { custom_field_id: null, name: 'email', position: 1, primary_field: false },
          { custom_field_id: null, name: 'first_name', position: 1, primary_field: false },
          { custom_field_id: regionId, name: 'Region', position: 3, primary_field: false },
        ],
      });
      expect(await admin.get(PROFILE)).toMatchObject({ status: 200, body: res.body });
      for (const text of [res.text, (await admin.get(PROFILE)).text, (await admin.get(FILE)).text]) expect(text).not.toContain(password);
      // Encrypted at rest: the column holds AES-GCM text, not the password.
      const row = await storedRow(accountId);
      expect(row.csv_password_encrypted).toMatch(/^v1:/);
      expect(row.csv_password_encrypted).not.toContain(password);
    });

    it('is a partial update: absent fields keep their value, null clears, and csv_days may be a 0/1 string', async () => {
      await admin.patch(PROFILE, { csv_url: 'https://hr.example.test/export', csv_user: 'u', csv_password: 'p', csv_time: '06:00', columns: { '0': ['uid'] } });
      const res = await admin.patch(PROFILE, { csv_days: '1000001', csv_user: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        csv_url: 'https://hr.example.test/export',
        csv_user: null,
        csv_password_set: true,
        csv_time: '06:00',
        csv_days: [true, false, false, false, false, false, true],
        import_columns: [{ custom_field_id: null, name: 'uid', position: 0, primary_field: true }],
      });
      const cleared = await admin.put(PROFILE, { csv_password: null, csv_time: null, columns: {} });
      expect(cleared.body).toMatchObject({ csv_password_set: false, csv_time: null, import_columns: [] });
      expect((await storedRow(accountId)).csv_password_encrypted).toBeNull();
      expect((await admin.patch(PROFILE, {})).status).toBe(200);
    });

    it('follows a renamed custom field and leaves a deleted one out', async () => {
      const id = Number((await admin.post('/api/author/custom_fields', { custom_fields: [{ name: 'Badge color' }] })).body.custom_fields[0].id);
      await admin.patch(PROFILE, { columns: { '0': ['uid'], '1': [String(id)] } });
      await admin.patch(`/api/author/custom_fields/${id}`, { custom_field: { name: 'Badge colour' } });
      expect((await admin.get(PROFILE)).body.import_columns[1]).toEqual({ custom_field_id: id, name: 'Badge colour', position: 1, primary_field: false });
      await admin.delete(`/api/author/custom_fields/${id}`);
      expect((await admin.get(PROFILE)).body.import_columns).toEqual([{ custom_field_id: null, name: 'uid', position: 0, primary_field: true }]);
    });

    it.each([
      ['an ftp URL', { csv_url: 'ftp://files.example.test/x.csv' }, 'csv_url'],
      ['a URL that is not one', { csv_url: 'not a url' }, 'csv_url'],
      ['a URL carrying credentials', { csv_url: 'https://bob:hunter2@hr.example.test/x.csv' }, 'csv_url'],
      ['a non-string user (a number is its text; a boolean is not)', { csv_user: true }, 'csv_user'],
      ['a non-boolean has_headers', { has_headers: 'yes' }, 'has_headers'],
      ['a null has_headers', { has_headers: null }, 'has_headers'],
      ['6 days', { csv_days: [true, true, true, true, true, true] }, 'csv_days'],
      ['8 days', { csv_days: [true, true, true, true, true, true, true, true] }, 'csv_days'],
      ['a non-boolean day', { csv_days: [1, 0, 0, 0, 0, 0, 0] }, 'csv_days'],
      ['a days string of the wrong length', { csv_days: '101' }, 'csv_days'],
      ['a days string of other characters', { csv_days: '10x0101' }, 'csv_days'],
      ['a time past 23:59', { csv_time: '24:00' }, 'csv_time'],
      ['a time without minutes', { csv_time: '7' }, 'csv_time'],
      ['columns that are an array', { columns: [['uid']] }, 'columns'],
      ['columns with a bad key', { columns: { '0': ['uid'], first: ['email'] } }, 'columns.first'],
      ['columns naming an unknown field', { columns: { '0': ['uid'], '1': ['shoe_size'] } }, 'columns.1[0]'],
      ['columns mapping a field twice', { columns: { '0': ['uid'], '1': ['email'], '2': ['email'] } }, 'columns.2[0]'],
      ['columns without uid', { columns: { '0': ['email'] } }, 'columns'],
      ['a column that is not an array', { columns: { '0': 'uid' } }, 'columns.0'],
      ['an account_id (mass assignment)', { account_id: 99 }, 'account_id'],
      ['an id (mass assignment)', { id: 1 }, 'id'],
      ['a csv_password_encrypted (mass assignment)', { csv_password_encrypted: 'v1:x' }, 'csv_password_encrypted'],
      ['an import_columns (mass assignment)', { import_columns: [] }, 'import_columns'],
    ])('answers 400 naming the field for %s, and changes nothing', async (_case, body, field) => {
      await admin.patch(PROFILE, { csv_time: '05:30', csv_url: 'https://keep.example.test/a.csv', columns: { '0': ['uid'], '1': ['email'] } });
      const before = (await admin.get(PROFILE)).body;
      const res = await admin.patch(PROFILE, { csv_time: '07:15', ...body });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      expect((await admin.get(PROFILE)).body).toEqual(before);
    });

    it("refuses another account's custom field in columns", async () => {
      const theirs = Number((await admin.as(stranger.token).post('/api/author/custom_fields', { custom_fields: [{ name: 'Theirs only' }] })).body.custom_fields[0].id);
      for (const name of [String(theirs), 'Theirs only']) {
        const res = await admin.patch(PROFILE, { columns: { '0': ['uid'], '1': [name] } });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ field: 'columns.1[0]' })]);
      }
    });

    it('publishes identity.import_profile.updated through the outbox, without the password', async () => {
      const seen: CloudEvent[] = [];
      const sub = await t.system.bus.events.consume(
        { durable: 'e2e-import-profile-updated', types: ['identity.import_profile.updated'], maxDeliver: 3, backoffMs: [100] },
        async (event) => void seen.push(event),
      );
      try {
        await admin.patch(PROFILE, { csv_time: '04:20', csv_password: 'evented-secret' });
        const event = await eventually(async () => seen.find((e) => (e.data as { csv_time: string }).csv_time === '04:20'));
        expect(event).toMatchObject({ source: '/identity', accountid: accountId, data: { id: expect.any(Number), csv_time: '04:20' } });
        expect(JSON.stringify(event)).not.toContain('evented-secret');
      } finally {
        await sub.unsubscribe();
      }
    });
  });

  describe('file', () => {
    it('answers a CSV template: one header row of the column names in position order', async () => {
      await admin.put(PROFILE, { columns: { '2': ['Cost, "center"'], '0': ['uid'], '1': ['email', 'Region'], '4': ['last_name'] } });
      const res = await admin.get(FILE);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="import-profile.csv"');
      expect(res.text).toBe('uid,email,"Cost, ""center""",,last_name\r\n');
    });

    it('answers an empty file when no column is mapped', async () => {
      const fresh = await t.factory.user(await t.factory.account(), ['admin']);
      const res = await admin.as(fresh.token).get(FILE);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.text).toBe('');
    });
  });

  describe('tenant isolation', () => {
    it("keeps each account's profile its own: one account's change never shows in another's", async () => {
      await admin.patch(PROFILE, { csv_time: '02:02', csv_user: 'ours', columns: { '0': ['uid'], '1': ['Region'] } });
      const theirs = admin.as(stranger.token);
      const before = await theirs.get(PROFILE);
      expect(before.status).toBe(200);
      expect(before.body.csv_user).not.toBe('ours');
      expect(before.body.id).not.toBe((await admin.get(PROFILE)).body.id);
      await theirs.patch(PROFILE, { csv_time: '09:09', csv_user: 'theirs', columns: { '0': ['uid'] } });
      expect((await admin.get(PROFILE)).body).toMatchObject({ csv_time: '02:02', csv_user: 'ours' });
      expect((await theirs.get(PROFILE)).body).toMatchObject({ csv_time: '09:09', csv_user: 'theirs', import_columns: [{ name: 'uid' }] });
      expect((await theirs.get(FILE)).text).toBe('uid\r\n');
    });
  });
});
