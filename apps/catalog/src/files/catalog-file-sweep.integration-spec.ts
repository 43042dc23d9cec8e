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
    await db.manager.query(`INSERT INTO catalog.course_templates (account_id, author_id, title, course_type, external_status, scorm_package_id) VALUES (1, 1, 'Plays it', 'scorm', 'published', $1)`, [kept]);
    const evidence = `evidence/1/7/${randomUUID()}`;
    const lostEvidence = `evidence/1/7/${randomUUID()}`;
    await db.manager.query(`INSERT INTO catalog.checkpoint_evidence (account_id, enrollment_id, user_id, file_key, file_name) VALUES (1, 7, 1, $1, 'proof.pdf')`, [evidence]);
    const named = [`scorm/${kept}/0`, `scorm/${kept}/1`, evidence];
    // An unpack killed before its rows committed; a file of the kept package no row names; evidence never recorded.
    const unnamed = [`scorm/${killed}/0`, `scorm/${killed}/1`, `scorm/${kept}/2`, lostEvidence];
    const others = ['scorm/readme', 'jobs/x/1/dump.zip'];
    for (const key of [...named, ...unnamed, ...others]) await put(key);

    // Written just now: an unpack under way looks like this, so nothing goes.
    expect(await sweep.sweep(new Date(Date.now() - 60_000))).toEqual({ unused: 0, packages: 0, evidence: 0 });
    expect(await sweep.sweep(new Date(Date.now() + 60_000))).toEqual({ unused: 0, packages: 3, evidence: 1 });
    for (const key of unnamed) expect(await exists(key)).toBe(false);
    for (const key of [...named, ...others]) expect(await exists(key)).toBe(true);
  });

  it('removes a package no course plays and no attempt keeps, with its files, once it is older than the cut-off', async () => {
    /** A package of course 1 with two stored files, made `daysAgo`. */
    const makePackage = async (daysAgo: number) => {
      const id = randomUUID();
      await db.manager.query(
        `INSERT INTO catalog.scorm_packages (id, account_id, course_template_id, version, title, launch_href, launch_sco, files_count, size, created_by, created_at)
         VALUES ($1, 1, 1, 'scorm_1_2', 'P', 'index.html', 'sco', 2, 10, 1, now() - make_interval(days => $2))`,
        [id, daysAgo],
      );
      const keys = [`scorm/${id}/0`, `scorm/${id}/1`];
      await db.manager.query(`INSERT INTO catalog.scorm_package_files (package_id, path, file_key, size) VALUES ($1, 'index.html', $2, 1), ($1, 'a.js', $3, 1)`, [id, ...keys]);
      for (const key of keys) await put(key);
      return { id, keys };
    };
    const [current, ofDeletedCourse, ofAnAttempt, replaced, recent] = [await makePackage(3), await makePackage(3), await makePackage(3), await makePackage(3), await makePackage(0)];
    await db.manager.query(
      `INSERT INTO catalog.course_templates (account_id, author_id, title, course_type, external_status, scorm_package_id, deleted_at)
       VALUES (1, 1, 'Current', 'scorm', 'published', $1, NULL), (1, 1, 'Deleted, may be restored', 'scorm', 'published', $2, now())`,
      [current.id, ofDeletedCourse.id],
    );
    await db.manager.query(`INSERT INTO catalog.scorm_registrations (account_id, enrollment_id, user_id, course_template_id, package_id) VALUES (1, 9, 1, 1, $1)`, [ofAnAttempt.id]);
    const ours = [current, ofDeletedCourse, ofAnAttempt, replaced, recent].map((p) => p.id);
    const packages = async () => ((await db.manager.query('SELECT id FROM catalog.scorm_packages WHERE id = ANY($1)', [ours])) as { id: string }[]).map((r) => r.id).sort();

    // A day ago is the cut-off: the replaced package goes, its rows first; its files were written just now, so they wait.
    expect(await sweep.sweep(new Date(Date.now() - 86_400_000))).toEqual({ unused: 1, packages: 0, evidence: 0 });
    expect(await packages()).toEqual([current.id, ofDeletedCourse.id, ofAnAttempt.id, recent.id].sort());
    for (const key of replaced.keys) expect(await exists(key)).toBe(true);
    // Later on, the files no row names any more go, and so does the package that was recent.
    expect(await sweep.sweep(new Date(Date.now() + 60_000))).toEqual({ unused: 1, packages: 4, evidence: 0 });
    expect(await packages()).toEqual([current.id, ofDeletedCourse.id, ofAnAttempt.id].sort());
    for (const key of [...replaced.keys, ...recent.keys]) expect(await exists(key)).toBe(false);
    for (const key of [...current.keys, ...ofDeletedCourse.keys, ...ofAnAttempt.keys]) expect(await exists(key)).toBe(true);
  });

  it('is claimed by one replica once per interval', async () => {
    expect(await claimSweep(db, 'files', 60_000)).toBe(true);
    expect(await claimSweep(db, 'files', 60_000)).toBe(false);
    await db.manager.query("UPDATE catalog.sweeps SET last_run_at = now() - interval '61 seconds' WHERE name = 'files'");
    expect(await Promise.all([claimSweep(db, 'files', 60_000), claimSweep(db, 'files', 60_000)])).toEqual(expect.arrayContaining([true, false]));
    expect(await claimSweep(db, 'other', 60_000)).toBe(true);
  });
});
