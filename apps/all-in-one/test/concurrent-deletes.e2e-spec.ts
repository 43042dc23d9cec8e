import type { ApiClient } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

// The first of concurrent deletes acts; the others find nothing left to do, and exactly one event is
// recorded (docs/identity-users.md: a repeated synchronous delete is a 404, a repeated asynchronous one a 204
// until the deletion worker has run).

const USERS = '/api/admin/users';
const TOKENS = '/api/admin/api_tokens';

describe('concurrent deletes act once (issue 11, finding 6)', () => {
  let t: TestSystem;
  let admin: ApiClient;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
  });
  afterAll(() => t?.close());

  const count = async (sql: string, values: unknown[] = []) => Number((await t.db.query<{ n: string }>(sql, values))[0].n);

  it('deletes a user once: one 204, then 404s, and one identity.user.deleted event', async () => {
    const user = (await admin.post(USERS, { users: [{ uid: 'deleted-concurrently' }] })).body.users[0];
    const answers = await Promise.all(Array.from({ length: 50 }, () => admin.delete(`${USERS}/${user.id}`)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 404)).toHaveLength(49);
    expect(await count("SELECT count(*) AS n FROM identity.outbox WHERE type = 'identity.user.deleted' AND payload->'data'->>'user_id' = $1", [String(user.id)])).toBe(1);
  });

  it('requests an asynchronous deletion once: 204 until the worker has deleted the user, one deletion_requested event', async () => {
    const user = (await admin.post(USERS, { users: [{ uid: 'deleted-async-concurrently' }] })).body.users[0];
    const answers = await Promise.all(Array.from({ length: 30 }, () => admin.delete(`${USERS}/${user.id}?async=true`)));
    const statuses = answers.map((res) => res.status);
    // The deletion worker may finish while the last requests still arrive: those find the user deleted (404).
    expect(statuses).toContain(204);
    expect(statuses.filter((status) => status !== 204 && status !== 404)).toEqual([]);
    if (statuses.includes(404)) expect(await count('SELECT count(*) AS n FROM identity.users WHERE id = $1 AND deleted_at IS NOT NULL', [user.id])).toBe(1);
    expect(await count("SELECT count(*) AS n FROM identity.outbox WHERE type = 'identity.user.deletion_requested' AND payload->'data'->>'user_id' = $1", [String(user.id)])).toBe(1);
  });

  it('revokes a token once: one 204, then 404s, and one revocation event', async () => {
    const user = (await admin.post(USERS, { users: [{ uid: 'token-holder' }] })).body.users[0];
    const token = (await admin.post(TOKENS, { api_token: { user_id: user.id, name: 'revoked concurrently' } })).body.api_tokens[0];
    const answers = await Promise.all(Array.from({ length: 50 }, () => admin.delete(`${TOKENS}/${token.id}`)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 404)).toHaveLength(49);
    expect(await count("SELECT count(*) AS n FROM identity.outbox WHERE type = 'identity.api_token.revoked' AND payload->'data'->>'id' = $1", [String(token.id)])).toBe(1);
  });
});
