import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { type Database, openDatabase } from './database.js';

describe('Database.onOwnConnection', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'ownconn', entities: [], migrations: [] });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

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
