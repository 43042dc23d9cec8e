import { type ApiClient, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const CRM = '/api/admin/crm_accounts';

describe('CRM account, end to end (gateway → NATS → identity → Postgres)', () => {
  let t: TestSystem;
  let admin: ApiClient;
  let accountId: number;
  let author: TestUser;
  let learner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
    accountId = await t.factory.accountIdOf('default');
    author = await t.factory.user(accountId, ['author']);
    learner = await t.factory.user(accountId, ['learner']);
    stranger = await t.factory.user(await t.factory.account('crm-other'), ['admin']);
  });
  afterAll(() => t?.close());

  it("answers the caller's own account under crm_account, with its name", async () => {
    const res = await admin.get(`${CRM}/${accountId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ crm_account: { id: accountId, name: expect.any(String) } });
    expect(res.body.crm_account.name).not.toBe('');
  });

  it('answers each account its own name', async () => {
    const res = await admin.as(stranger.token).get(`${CRM}/${stranger.accountId}`);
    expect(res.body).toEqual({ crm_account: { id: stranger.accountId, name: 'crm-other' } });
  });

  it('answers 401 without a token', async () => {
    const res = await admin.as(undefined).get(`${CRM}/${accountId}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('answers 403 to learners and authors', async () => {
    for (const token of [learner.token, author.token]) expect((await admin.as(token).get(`${CRM}/${accountId}`)).status).toBe(403);
  });

  it("answers 404 for another account's id, in both directions, never its name", async () => {
    const mine = await admin.get(`${CRM}/${stranger.accountId}`);
    expect(mine.status).toBe(404);
    expect(mine.body.code).toBe('CRM_ACCOUNT_NOT_FOUND');
    expect(mine.text).not.toContain('crm-other');
    expect((await admin.as(stranger.token).get(`${CRM}/${accountId}`)).status).toBe(404);
  });

  it('answers 404 for an unknown id and 400 for an id that is not a positive integer', async () => {
    expect((await admin.get(`${CRM}/999999`)).status).toBe(404);
    for (const id of ['abc', '1.5', '0', '-1']) expect((await admin.get(`${CRM}/${id}`)).status).toBe(400);
  });

  it('answers 400 for a query string it does not take', async () => {
    expect((await admin.get(`${CRM}/${accountId}?name=x`)).status).toBe(400);
  });
});
