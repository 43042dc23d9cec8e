import { readFile } from 'node:fs/promises';
import { createLogger, migrateService } from '@lms/platform';
import { createTestDatabase, queryDatabase, type TestDatabase } from '@lms/testing';
import { load, SERVICES } from '../src/host.js';

/**
 * Least privilege in the database (issue 16): `k8s/base/postgres/roles.sql` on a real Postgres, every
 * service's migrations run as its own role, and no role reaches another service's schema.
 */
const SCHEMAS = ['identity', 'catalog', 'scheduling', 'jobs', 'locking'];
const roleOf = (schema: string) => `lms_${schema}`;

describe('one database role per service (k8s/base/postgres/roles.sql)', () => {
  let db: TestDatabase;
  const as = (schema: string) => {
    const url = new URL(db.url);
    url.username = roleOf(schema);
    url.password = 'unused-with-trust-auth';
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
    const logger = createLogger('silent');
    for (const name of SERVICES) {
      const { service } = await load(name);
      if (service) await migrateService(service, as(service.schema), logger);
    }
  }, 120_000);
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
});
