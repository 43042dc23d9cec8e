import { type Database, openDatabase } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { IDENTITY_ENTITIES, IDENTITY_MIGRATIONS } from '../identity.module.js';
import { IdempotencyTokenReplies1768200000000 } from './1768200000000-idempotency-token-replies.js';

/** The migration that takes issued tokens out of the Idempotency-Key records kept before it (real Postgres). */
describe('migration 1768200000000: idempotency token replies', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'identity', entities: IDENTITY_ENTITIES, migrations: IDENTITY_MIGRATIONS, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('replaces every kept answer that holds a token with the refusal, and leaves the others', async () => {
    const token = { ok: true, status: 201, body: { api_tokens: [{ id: '7', name: 'ci', token: 'lms_AbC_dEf' }] } };
    const other = { ok: true, status: 201, body: { custom_fields: [{ id: '3', name: 'lms_not_a_token' }] } };
    await db.manager.query(
      `INSERT INTO identity.idempotency_keys (account_id, user_id, key, fingerprint, reply) VALUES (1, 1, 'a', 'f', $1), (1, 1, 'b', 'f', $2), (1, 1, 'c', 'f', NULL)`,
      [JSON.stringify(token), JSON.stringify(other)],
    );
    const runner = db.manager.connection.createQueryRunner();
    try {
      await new IdempotencyTokenReplies1768200000000().up(runner);
    } finally {
      await runner.release();
    }
    const rows = (await db.manager.query('SELECT key, reply FROM identity.idempotency_keys ORDER BY key')) as { key: string; reply: string | null }[];
    expect(rows[0].reply).not.toContain('lms_AbC');
    expect(JSON.parse(rows[0].reply as string)).toMatchObject({ ok: false, error: { status: 409, code: 'IDEMPOTENT_ANSWER_WITHHELD' } });
    expect(rows.slice(1)).toEqual([
      { key: 'b', reply: JSON.stringify(other) },
      { key: 'c', reply: null },
    ]);
  });
});
