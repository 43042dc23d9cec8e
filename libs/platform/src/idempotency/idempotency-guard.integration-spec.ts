import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { RpcReply, RpcRequest } from '@lms/contracts';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { createLogger } from '../observability/logger.js';
import { type Database, openDatabase } from '../persistence/database.js';
import { DomainError } from '../rpc/rpc-errors.js';
import { canonicalJson, IdempotencyGuard } from './idempotency-guard.js';
import { idempotencyTableUp } from './idempotency-table.js';

class Tables1700000000000 implements MigrationInterface {
  name = 'Tables1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await idempotencyTableUp(q, 'idemtest');
    await q.query('CREATE TABLE idemtest.effects (id serial PRIMARY KEY, note text NOT NULL)');
  }
  async down(): Promise<void> {}
}

const request = (key: string | undefined, body: unknown, userId = 7): RpcRequest => ({
  ctx: { requestId: 'r', accountId: 1, subAccountId: null, userId, roles: ['admin'], ...(key ? { idempotencyKey: key } : {}) },
  params: {},
  query: {},
  body,
});

describe('IdempotencyGuard (real Postgres)', () => {
  let testDb: TestDatabase;
  let db: Database;
  let guard: IdempotencyGuard;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'idemtest', entities: [], migrations: [Tables1700000000000] });
    guard = new IdempotencyGuard(db, createLogger('silent'));
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const effects = async () => Number((await db.manager.query('SELECT count(*) AS n FROM idemtest.effects'))[0].n);
  /** A handler whose effect is a row, written in its transaction (which the key's joins). */
  const work = (note: string, delayMs = 0) => async (): Promise<RpcReply> => {
    const [row] = await db.transaction((manager) => manager.query('INSERT INTO idemtest.effects (note) VALUES ($1) RETURNING id', [note]));
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    return { ok: true, status: 201, body: { id: row.id, note } };
  };

  it('does the work once and replays it; without a key every call works', async () => {
    const before = await effects();
    const first = await guard.run('s.create', request('k1', { a: 1, b: 2 }), work('one'));
    const again = await guard.run('s.create', request('k1', { b: 2, a: 1 }), work('one'));
    expect(again).toEqual({ ...first, headers: { 'idempotent-replayed': 'true' } });
    await guard.run('s.create', request(undefined, {}), work('x'));
    await guard.run('s.create', request(undefined, {}), work('x'));
    expect((await effects()) - before).toBe(3);
  });

  it('serialises concurrent calls with one key on its row: one effect, one answer', async () => {
    const before = await effects();
    const answers = await Promise.all(Array.from({ length: 8 }, () => guard.run('s.create', request('k2', { n: 1 }), work('slow', 50))));
    expect(new Set(answers.map((a) => JSON.stringify(a.ok && a.body))).size).toBe(1);
    expect((await effects()) - before).toBe(1);
  });

  it('refuses another request under a used key with 422', async () => {
    await guard.run('s.create', request('k3', { n: 1 }), work('a'));
    await expect(guard.run('s.create', request('k3', { n: 2 }), work('b'))).rejects.toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    await expect(guard.run('s.other', request('k3', { n: 1 }), work('b'))).rejects.toMatchObject({ status: 422 });
  });

  it('rolls the claim back with a failing handler, so a retry does the work', async () => {
    const fail = async (): Promise<RpcReply> => {
      await db.transaction((manager) => manager.query("INSERT INTO idemtest.effects (note) VALUES ('rolled back')"));
      throw new DomainError(400, 'NOPE', 'Bad Request');
    };
    await expect(guard.run('s.create', request('k4', {}), fail)).rejects.toBeInstanceOf(DomainError);
    expect(await db.manager.query("SELECT count(*) AS n FROM idemtest.effects WHERE note = 'rolled back'")).toEqual([{ n: '0' }]);
    const retried = await guard.run('s.create', request('k4', {}), work('retried'));
    expect(retried).toMatchObject({ ok: true, body: { note: 'retried' } });
  });

  it('keeps keys per account and user', async () => {
    const a = await guard.run('s.create', request('k5', {}, 1), work('user 1'));
    const b = await guard.run('s.create', request('k5', {}, 2), work('user 2'));
    expect(a).not.toEqual(b);
  });

  it('forgets keys older than 24 hours and purges them', async () => {
    await guard.run('s.create', request('k6', {}), work('old'));
    await db.manager.query("UPDATE idemtest.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k6'");
    const again = await guard.run('s.create', request('k6', { other: true }), work('new'));
    expect(again).toMatchObject({ ok: true, body: { note: 'new' } });
    await db.manager.query("UPDATE idemtest.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k6'");
    expect(await guard.purge()).toBe(1);
    expect(await db.manager.query("SELECT key FROM idemtest.idempotency_keys WHERE key = 'k6'")).toEqual([]);
  });

  it('holds no connection before the handler opens its transaction: what it asks first may need one itself', async () => {
    // One free connection in all (migrating takes two, so the pool has two and one is held here): with the
    // key's transaction open from the start, the handler's first read would wait for ever, as locking's
    // question to catalog did while catalog's writes, asking locking, held catalog's pool.
    const small = await openDatabase({ url: testDb.url, schema: 'idemtest', entities: [], migrations: [], poolSize: 2 });
    try {
      await small.onOwnConnection(async () => {
        const narrow = new IdempotencyGuard(small, createLogger('silent'));
        const handler = async (): Promise<RpcReply> => {
          // On the pool, as another service's handler takes a connection of its own pool.
          const [[n]] = await small.queryArrays('SELECT count(*)::int FROM idemtest.effects');
          const [row] = await small.transaction((manager) => manager.query("INSERT INTO idemtest.effects (note) VALUES ('after a read') RETURNING id"));
          return { ok: true, status: 201, body: { id: row.id, seen: n } };
        };
        const stuck = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the handler waited for a connection its own key held')), 5000).unref());
        const first = await Promise.race([narrow.run('s.create', request('k7', {}), handler), stuck]);
        expect(first).toMatchObject({ ok: true, status: 201 });
        expect(await narrow.run('s.create', request('k7', {}), handler)).toEqual({ ...first, headers: { 'idempotent-replayed': 'true' } });
      });
    } finally {
      await small.close();
    }
  });

  it('records the answer of a handler that never opened a transaction, and a write outside one joins the key', async () => {
    let calls = 0;
    const reads = async (): Promise<RpcReply> => ({ ok: true, body: { call: ++calls } });
    const first = await guard.run('s.read', request('k8', {}), reads);
    expect(await guard.run('s.read', request('k8', {}), reads)).toEqual({ ...first, headers: { 'idempotent-replayed': 'true' } });
    expect(calls).toBe(1);
    // A repository write opens the key's transaction: the failure after it rolls both back.
    const before = await effects();
    const failing = async (): Promise<RpcReply> => {
      await db.beginDeferred();
      await db.manager.query("INSERT INTO idemtest.effects (note) VALUES ('outside transaction()')");
      throw new DomainError(400, 'NOPE', 'Bad Request');
    };
    await expect(guard.run('s.create', request('k9', {}), failing)).rejects.toBeInstanceOf(DomainError);
    expect(await effects()).toBe(before);
  });

  it('replays the first answer to a repeat that failed because the first committed while it ran', async () => {
    // The repeat passes the first look while the first is in flight, then fails a check the first's commit
    // decided (a uid the first took): the first's answer is still the answer.
    const first = guard.run('s.create', request('k10', {}), work('first', 150));
    await new Promise((r) => setTimeout(r, 30));
    const repeat = guard.run('s.create', request('k10', {}), async () => {
      await first;
      throw new DomainError(400, 'UID_TAKEN', 'Bad Request');
    });
    expect(await repeat).toEqual({ ...(await first), headers: { 'idempotent-replayed': 'true' } });
  });

  it('refuses with 422 a request of another body that failed because the first, under its key, committed while it ran', async () => {
    const first = guard.run('s.create', request('k11', { name: 'A' }), work('first', 150));
    await new Promise((r) => setTimeout(r, 30));
    const other = guard.run('s.create', request('k11', { name: 'B' }), async () => {
      await first;
      throw new DomainError(400, 'UID_TAKEN', 'Bad Request');
    });
    await expect(other).rejects.toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('keeps no answer that holds a secret: the effect once, then a 409 saying why', async () => {
    const secretWork = async (): Promise<RpcReply> => {
      await work('secret')();
      return { ok: true, status: 201, body: { token: 'lms_secret' }, secret: true };
    };
    const before = await effects();
    expect(await guard.run('s.create', request('k12', {}), secretWork)).toMatchObject({ ok: true, status: 201, body: { token: 'lms_secret' } });
    expect(await guard.run('s.create', request('k12', {}), secretWork)).toMatchObject({ ok: false, error: { status: 409, code: 'IDEMPOTENT_ANSWER_WITHHELD' } });
    expect(await effects()).toBe(before + 1);
    const [row] = await db.manager.query("SELECT reply::text AS reply FROM idemtest.idempotency_keys WHERE key = 'k12'");
    expect(row.reply).not.toContain('lms_secret');
  });

  it('fingerprints JSON by value, not by key order', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
  });
});
