import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { type Database, openDatabase, prepare, queryResult } from './database.js';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = await openDatabase({ url: testDb.url, schema: 'dbspec', entities: [], migrations: [] });
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

describe('Database.onOwnConnection', () => {
  it('holds session state on one connection, and hands it back clean', async () => {
    const pids = await db.onOwnConnection(async (query) => {
      const [a] = await query('SELECT pg_backend_pid() AS pid');
      const [b] = await query('SELECT pg_backend_pid() AS pid');
      return [a.pid, b.pid];
    });
    expect(pids[0]).toBe(pids[1]);
  });

  // The jobs worker crashed ("Unhandled 'error' event") when Postgres restarted while a sender held its connection.
  it('survives the server ending the connection while it is held: the work fails, the process lives on', async () => {
    const held = db.onOwnConnection(async (query) => {
      const [{ pid }] = await query('SELECT pg_backend_pid() AS pid');
      await testDb.query('SELECT pg_terminate_backend($1)', [pid]);
      // The client hears of it between statements, as a sender waiting on SMTP would.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return query('SELECT 1');
    });
    await expect(held).rejects.toThrow();
    const [row] = await db.onOwnConnection((query) => query('SELECT 2 AS two'));
    expect(row.two).toBe(2);
  });
});

describe('Database.undoable', () => {
  beforeAll(async () => {
    await testDb.query('CREATE TABLE dbspec.undoable (key text PRIMARY KEY, note text)');
  });

  it('undoes only its own writes on failure, so the transaction in progress goes on: a retry after a unique violation commits', async () => {
    await testDb.query("INSERT INTO dbspec.undoable VALUES ('taken', 'before')");
    const tries: string[] = [];
    await db.transaction(async (manager) => {
      await manager.query("INSERT INTO dbspec.undoable VALUES ('outer', 'kept')");
      const insert = (key: string) =>
        db.undoable(async (inner) => {
          tries.push(key);
          await inner.query("INSERT INTO dbspec.undoable VALUES ($1 || '-first', 'written, then undone with its try')", [key]);
          await inner.query("INSERT INTO dbspec.undoable VALUES ($1, 'x')", [key]);
        });
      await insert('taken').catch(() => insert('free'));
    });
    expect(tries).toEqual(['taken', 'free']);
    expect(await testDb.query('SELECT key FROM dbspec.undoable ORDER BY key')).toEqual([{ key: 'free' }, { key: 'free-first' }, { key: 'outer' }, { key: 'taken' }]);
  });

  it('is a transaction of its own when none is in progress', async () => {
    await expect(db.undoable((m) => m.query("INSERT INTO dbspec.undoable VALUES ('alone', 'a'), ('alone', 'b')"))).rejects.toThrow();
    expect(await testDb.query("SELECT count(*)::int AS n FROM dbspec.undoable WHERE key = 'alone'")).toEqual([{ n: 0 }]);
  });
});

describe('Database.deferredTransaction', () => {
  it('gives its connection back when the work fails while a write beside it is still opening the transaction', async () => {
    // Two connections, one held: a connection kept by a failed opening would leave none.
    const small = await openDatabase({ url: testDb.url, schema: 'dbspec', entities: [], migrations: [], poolSize: 2 });
    try {
      await small.onOwnConnection(async () => {
        const hooks = { begin: async () => undefined, end: async () => undefined };
        for (let i = 0; i < 3; i++) {
          const work = () => Promise.all([small.transaction((m) => m.query('SELECT 1')), Promise.reject(new Error('beside it'))]);
          await expect(small.deferredTransaction(hooks, work)).rejects.toThrow('beside it');
        }
        const stuck = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no connection came back')), 5000).unref());
        expect(await Promise.race([small.queryArrays('SELECT 1'), stuck])).toEqual([[1]]);
      });
    } finally {
      // A leaked connection would hold the pool's end for ever: the test fails above, and does not hang here.
      await Promise.race([small.close(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    }
  });
});

describe('Database.transaction', () => {
  /** Wraps the transaction's pg client to count the queries handed to it and not yet answered. */
  function watchClient(): { readonly most: number } {
    const client = (db.manager.queryRunner as unknown as { databaseConnection: { query: (...args: unknown[]) => unknown } }).databaseConnection;
    const query = client.query.bind(client);
    const seen = { open: 0, most: 0 };
    client.query = (...args: unknown[]) => {
      seen.most = Math.max(seen.most, ++seen.open);
      const settle = () => void seen.open--;
      const callback = args.find((a) => typeof a === 'function') ?? (args[0] as { callback?: unknown } | undefined)?.callback;
      if (typeof callback === 'function') {
        const done = callback as (...r: unknown[]) => void;
        const wrapped = (...r: unknown[]) => (settle(), done(...r));
        if (args.includes(callback)) args[args.indexOf(callback)] = wrapped;
        else (args[0] as { callback: unknown }).callback = wrapped;
        return query(...args);
      }
      const result = query(...args) as Promise<unknown>;
      void result.then(settle, settle);
      return result;
    };
    return seen;
  }

  it("gives a transaction's connection one query at a time, however many are started together, and answers each its own rows", async () => {
    const statement = prepare('SELECT $1::int * 10 AS n');
    const { rows, most } = await db.transaction(async () => {
      const seen = watchClient();
      const rows = await Promise.all([
        ...[1, 2, 3, 4].map((i) => db.manager.query('SELECT pg_sleep(0.01), $1::int AS n', [i]).then((r: { n: number }[]) => r[0].n)),
        ...[5, 6].map((i) => db.queryPrepared(statement, [i]).then((r) => r[0].n)),
      ]);
      return { rows, most: seen.most };
    });
    expect(rows).toEqual([1, 2, 3, 4, 50, 60]);
    expect(most).toBe(1);
  });

  it('lets the queries after a failed one settle too, and rolls the transaction back', async () => {
    await db.manager.query('CREATE TABLE IF NOT EXISTS dbspec.marks (n int)');
    let settled: PromiseSettledResult<unknown>[] = [];
    await expect(
      db.transaction(async () => {
        settled = await Promise.allSettled([
          db.manager.query('INSERT INTO dbspec.marks VALUES (1)'),
          db.manager.query('SELECT 1 / 0'),
          db.manager.query('SELECT 2'),
        ]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(await db.manager.query('SELECT count(*)::int AS n FROM dbspec.marks')).toEqual([{ n: 0 }]);
  });
});

describe('queryResult', () => {
  it('reads rows and a count from what TypeORM answers for each kind of statement', async () => {
    const q = (sql: string, params: unknown[] = []) => db.manager.query(sql, params).then((r: unknown) => queryResult<{ n: number }>(r));
    await q('CREATE TABLE dbspec.counted (n int)');
    expect(await q('INSERT INTO dbspec.counted SELECT generate_series(1, 3)')).toEqual({ rows: [], count: 0 });
    expect(await q('INSERT INTO dbspec.counted VALUES (4), (5) RETURNING n')).toEqual({ rows: [{ n: 4 }, { n: 5 }], count: 2 });
    expect(await q('SELECT n FROM dbspec.counted WHERE n <= 2 ORDER BY n')).toEqual({ rows: [{ n: 1 }, { n: 2 }], count: 2 });
    // An UPDATE or a DELETE: TypeORM answers [rows, count], with or without RETURNING.
    expect(await q('UPDATE dbspec.counted SET n = n * 10 WHERE n > 2')).toEqual({ rows: [], count: 3 });
    expect(await q('UPDATE dbspec.counted SET n = n + 1 WHERE n = 1 RETURNING n')).toEqual({ rows: [{ n: 2 }], count: 1 });
    expect(await q('DELETE FROM dbspec.counted WHERE n >= 30')).toEqual({ rows: [], count: 3 });
    expect(await q('DELETE FROM dbspec.counted RETURNING n')).toEqual({ rows: [{ n: 2 }, { n: 2 }], count: 2 });
    expect(await q('DELETE FROM dbspec.counted')).toEqual({ rows: [], count: 0 });
  });
});
