import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { openDatabase, type Database } from '../persistence/database.js';
import { cloneStepTablesDown, cloneStepTablesUp, runCloneStep } from './clone-steps.js';

const tablesIn = (schema: string) =>
  class implements MigrationInterface {
    name = `CloneSteps${schema}1700000000000`;
    up = (q: QueryRunner) => cloneStepTablesUp(q, schema);
    down = (q: QueryRunner) => cloneStepTablesDown(q, schema);
  };

// Two services' steps of one clone on one database, as in the embedded default: each service's step is
// serialised with itself, never with another service's (a retried identity step once waited for catalog's
// long copy, past the RPC timeout, and the clone failed).
describe('clone steps on a shared database', () => {
  let testDb: TestDatabase;
  let identity: Database;
  let catalog: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    identity = await openDatabase({ url: testDb.url, schema: 'idsteps', entities: [], migrations: [tablesIn('idsteps')], poolSize: 3 });
    catalog = await openDatabase({ url: testDb.url, schema: 'catsteps', entities: [], migrations: [tablesIn('catsteps')], poolSize: 3 });
  });

  afterAll(async () => {
    await identity?.close();
    await catalog?.close();
    await testDb?.drop();
  });

  it("runs one service's step while another service's step of the same clone is still open, and the same service's step once", async () => {
    const cloneId = randomUUID();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const longCopy = runCloneStep(catalog, 1, cloneId, 'catalog: copying', async () => {
      entered();
      await held;
      return { copied: 1 };
    });
    await inside;

    const other = await Promise.race([runCloneStep(identity, 1, cloneId, 'identity: creating', async () => ({ made: 7 })), new Promise((resolve) => setTimeout(() => resolve('waited'), 3_000))]);
    expect(other).toEqual({ made: 7 });

    // The same service's step waits for the open one, then answers its result without running again.
    let ranAgain = false;
    const repeat = runCloneStep(catalog, 1, cloneId, 'catalog: copying', async () => {
      ranAgain = true;
      return { copied: 2 };
    });
    release();
    expect(await longCopy).toEqual({ copied: 1 });
    expect(await repeat).toEqual({ copied: 1 });
    expect(ranAgain).toBe(false);
  });
});
