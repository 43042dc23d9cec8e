import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createTestDatabase, queryDatabase, type TestDatabase } from '@lms/testing';

/**
 * Least privilege in the database and migrations before rollout (issue 16): `k8s/base/postgres/roles.sql`
 * on a real Postgres, then every service's init container command (`node main.js --migrate`, from the
 * build `npm test` makes first) as its own role, and no role reaches another service's schema.
 */
const SCHEMAS = ['identity', 'catalog', 'scheduling', 'jobs', 'locking'];
const roleOf = (schema: string) => `lms_${schema}`;
/**
 * The roles sign in with this (roles.sql leaves passwords to the deployment). A trust-auth server ignores it;
 * the embedded Postgres `npm test` starts without TEST_DATABASE_URL checks it. Fixed, so parallel runs on one
 * server agree.
 */
const ROLE_PASSWORD = 'lms-test-role-password';
const describeBuilt = existsSync('dist/apps/catalog/main.js') ? describe : describe.skip;

/** `node dist/apps/<app>/main.js --migrate` with only `env`: its exit code and what it printed. */
const migrate = (app: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [`dist/apps/${app}/main.js`, '--migrate'], { env: { PATH: process.env.PATH, LOG_FORMAT: 'json', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr });
    });
  });

describeBuilt('one database role per service (k8s/base/postgres/roles.sql), migrated by the init container command', () => {
  let db: TestDatabase;
  const as = (schema: string) => {
    const url = new URL(db.url);
    url.username = roleOf(schema);
    url.password = ROLE_PASSWORD;
    return url.toString();
  };
  /** The Postgres error code a statement run as `schema`'s role fails with, or 'ok'. */
  const outcome = (schema: string, sql: string) =>
    queryDatabase(as(schema), sql).then(
      () => 'ok',
      (err: { code?: string }) => err.code ?? 'error',
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    // Twice: the script is safe to run again.
    const script = await readFile('k8s/base/postgres/roles.sql', 'utf8');
    await queryDatabase(db.url, script);
    await queryDatabase(db.url, script);
    for (const schema of SCHEMAS) await queryDatabase(db.url, `ALTER ROLE ${roleOf(schema)} PASSWORD '${ROLE_PASSWORD}'`);
    // As the init containers do, no NATS_URL: migrating needs the database only.
    const runs = await Promise.all(SCHEMAS.map(async (schema) => [schema, await migrate(schema, { DATABASE_URL: as(schema) })] as const));
    for (const [schema, run] of runs) expect([schema, run.code, run.output]).toEqual([schema, 0, expect.stringContaining('schema is migrated')]);
  }, 180_000);
  afterAll(() => db?.drop());

  it('lets each service migrate its own schema as its own role, which owns what it made', async () => {
    const owners = await db.query<{ schema: string; owner: string; tables: number }>(
      `SELECT n.nspname AS schema, pg_get_userbyid(n.nspowner) AS owner,
              (SELECT count(*)::int FROM pg_tables t WHERE t.schemaname = n.nspname AND t.tableowner = pg_get_userbyid(n.nspowner)) AS tables
         FROM pg_namespace n WHERE n.nspname = ANY($1) ORDER BY n.nspname`,
      [SCHEMAS],
    );
    expect(owners.map(({ schema, owner }) => [schema, owner])).toEqual([...SCHEMAS].sort().map((s) => [s, roleOf(s)]));
    for (const { schema, tables } of owners) expect([schema, tables > 0]).toEqual([schema, true]);
  });

  it('gives no role any access to another service’s schema', async () => {
    const reach = await db.query<{ role: string; schema: string }>(
      `SELECT r AS role, s AS schema FROM unnest($1::text[]) r, unnest($2::text[]) s
        WHERE has_schema_privilege(r, s, 'USAGE') OR has_schema_privilege(r, s, 'CREATE')`,
      [SCHEMAS.map(roleOf), SCHEMAS],
    );
    expect(reach.map(({ role, schema }) => `${role} -> ${schema}`).sort()).toEqual(SCHEMAS.map((s) => `${roleOf(s)} -> ${s}`).sort());
  });

  it('refuses catalog’s role a read of identity.users, and every role a write outside its schema', async () => {
    expect(await outcome('catalog', 'SELECT * FROM identity.users')).toBe('42501');
    expect(await outcome('catalog', "INSERT INTO identity.users (account_id, uid) VALUES (1, 'x')")).toBe('42501');
    expect(await outcome('identity', 'SELECT count(*) FROM catalog.course_templates')).toBe('42501');
    expect(await outcome('jobs', 'CREATE TABLE locking.stolen (id int)')).toBe('42501');
    expect(await outcome('locking', 'CREATE TABLE public.stray (id int)')).toBe('42501');
    expect(await outcome('scheduling', 'CREATE SCHEMA extra')).toBe('42501');
    // Its own schema, it reads.
    expect(await outcome('catalog', 'SELECT count(*) FROM catalog.course_templates')).toBe('ok');
    expect(await outcome('identity', 'SELECT count(*) FROM identity.users')).toBe('ok');
  });

  it('migrates again with nothing to do, and exits 1 when it cannot migrate and 2 when there is nothing to migrate', async () => {
    expect((await migrate('catalog', { DATABASE_URL: as('catalog') })).code).toBe(0);
    // jobs-worker's init container runs the jobs service's migrations: the schema is theirs.
    expect((await migrate('jobs', { DATABASE_URL: as('jobs') })).code).toBe(0);
    const refused = await migrate('catalog', { DATABASE_URL: as('identity') });
    expect([refused.code, refused.output]).toEqual([1, expect.stringContaining('migration failed')]);
    expect((await migrate('gateway', {})).code).toBe(2);
    expect((await migrate('catalog', {})).code).toBe(2);
  }, 120_000);
});
