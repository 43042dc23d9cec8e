import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimSweep, createLogger, type Database, FolderFileStore, loadConfig, type MessageBus, openDatabase, type Runtime } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { CATALOG_ENTITIES, CATALOG_MIGRATIONS } from '../catalog.module.js';
import { CatalogFileSweep } from './catalog-file-sweep.js';

/** Catalog's sweep of the files no package or evidence row names (real Postgres, the embedded folder store). */
describe('the catalog file sweep', () => {
  let testDb: TestDatabase;
  let db: Database;
  let dataDir: string;
  let files: FolderFileStore;
  let sweep: CatalogFileSweep;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'catalog', entities: CATALOG_ENTITIES, migrations: CATALOG_MIGRATIONS, poolSize: 2 });
    dataDir = await mkdtemp(join(tmpdir(), 'catalog-files-'));
    const config = loadConfig({ DATA_DIR: dataDir });
    // Without NATS the bus only tells the file store to be a folder: the sweep sends nothing on it.
    const runtime = { config, databaseUrl: testDb.url, logger: createLogger('silent') } as Runtime;
    sweep = new CatalogFileSweep(db, runtime, {} as MessageBus, runtime.logger);
    files = new FolderFileStore(join(dataDir, 'files', 'default'));
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const put = (key: string) => files.put(key, [Buffer.from(key)]);
  const exists = async (key: string) => (await files.open(key).then((f) => (f?.stream.destroy(), f !== undefined)));

  it('removes package and evidence files no row names once older than the cut-off, and keeps the named ones and other keys', async () => {
    const [kept, killed] = [randomUUID(), randomUUID()];
    await db.manager.query(
      `INSERT INTO catalog.scorm_packages (id, account_id, course_template_id, version, title, launch_href, launch_sco, files_count, size, created_by)
       VALUES ($1, 1, 1, 'scorm_1_2', 'Kept', 'index.html', 'sco', 2, 10, 1)`,
      [kept],
    );
    await db.manager.query(`INSERT INTO catalog.scorm_package_files (package_id, path, file_key, size) VALUES ($1, 'index.html', $2, 1), ($1, 'a.js', $3, 1)`, [kept, `scorm/${kept}/0`, `scorm/${kept}/1`]);
    const evidence = `evidence/1/7/${randomUUID()}`;
    const lostEvidence = `evidence/1/7/${randomUUID()}`;
    await db.manager.query(`INSERT INTO catalog.checkpoint_evidence (account_id, enrollment_id, user_id, file_key, file_name) VALUES (1, 7, 1, $1, 'proof.pdf')`, [evidence]);
    const named = [`scorm/${kept}/0`, `scorm/${kept}/1`, evidence];
    // An unpack killed before its rows committed; a file of the kept package no row names; evidence never recorded.
    const unnamed = [`scorm/${killed}/0`, `scorm/${killed}/1`, `scorm/${kept}/2`, lostEvidence];
    const others = ['scorm/readme', 'jobs/x/1/dump.zip'];
    for (const key of [...named, ...unnamed, ...others]) await put(key);

    // Written just now: an unpack under way looks like this, so nothing goes.
    expect(await sweep.sweep(new Date(Date.now() - 60_000))).toEqual({ packages: 0, evidence: 0 });
    expect(await sweep.sweep(new Date(Date.now() + 60_000))).toEqual({ packages: 3, evidence: 1 });
    for (const key of unnamed) expect(await exists(key)).toBe(false);
    for (const key of [...named, ...others]) expect(await exists(key)).toBe(true);
  });

  it('is claimed by one replica once per interval', async () => {
    expect(await claimSweep(db, 'files', 60_000)).toBe(true);
    expect(await claimSweep(db, 'files', 60_000)).toBe(false);
    await db.manager.query("UPDATE catalog.sweeps SET last_run_at = now() - interval '61 seconds' WHERE name = 'files'");
    expect(await Promise.all([claimSweep(db, 'files', 60_000), claimSweep(db, 'files', 60_000)])).toEqual(expect.arrayContaining([true, false]));
    expect(await claimSweep(db, 'other', 60_000)).toBe(true);
  });
});
