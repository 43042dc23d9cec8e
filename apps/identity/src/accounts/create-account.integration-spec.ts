import { type Database, DomainError, openDatabase } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { tokenHash } from '@lms/contracts';
import { IDENTITY_ENTITIES, IDENTITY_MIGRATIONS } from '../identity.module.js';
import { InitialIdentity1763800000000 } from '../migrations/1763800000000-initial-identity.js';
import { createAccount } from './create-account.js';

const open = (url: string, migrations = IDENTITY_MIGRATIONS) => openDatabase({ url, schema: 'identity', entities: IDENTITY_ENTITIES, migrations, poolSize: 4 });

describe('accounts and sub-accounts (real Postgres)', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    // Accounts that exist before the sub-accounts migration...
    const before = await open(testDb.url, [InitialIdentity1763800000000]);
    await before.manager.query("INSERT INTO identity.accounts (subdomain, name) VALUES ('old-one', 'Old One'), ('old-two', 'Old Two')");
    await before.close();
    db = await open(testDb.url);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('backfills one root sub-account, named after the account, for accounts that existed before the migration', async () => {
    const rows = await db.manager.query(
      `SELECT a.subdomain, s.name, s.is_root FROM identity.sub_accounts s JOIN identity.accounts a ON a.id = s.account_id
        WHERE a.subdomain LIKE 'old-%' ORDER BY a.subdomain`,
    );
    expect(rows).toEqual([
      { subdomain: 'old-one', name: 'Old One', is_root: true },
      { subdomain: 'old-two', name: 'Old Two', is_root: true },
    ]);
  });

  it('creates the account, its root sub-account, its administrator and a token stored as a hash, together', async () => {
    const created = await createAccount(db, { subdomain: 'acme', name: '  Acme  ' });
    expect(created.account).toMatchObject({ subdomain: 'acme', name: 'Acme' });
    expect(created.rootSubAccount).toMatchObject({ accountId: created.account.id, name: 'Acme', isRoot: true });
    expect(created.admin).toMatchObject({ accountId: created.account.id, uid: 'admin', roles: ['admin'] });
    const tokens = await db.manager.query('SELECT user_id, token_hash FROM identity.api_tokens WHERE account_id = $1', [created.account.id]);
    expect(tokens).toEqual([{ user_id: created.admin.id, token_hash: tokenHash(created.token) }]);
  });

  it('uses the given administrator token when there is one (the bootstrap path)', async () => {
    const created = await createAccount(db, { subdomain: 'given', name: 'Given', adminToken: 'a-configured-token-123' });
    expect(created.token).toBe('a-configured-token-123');
  });

  it('refuses a second root sub-account for an account', async () => {
    const { account } = await createAccount(db, { subdomain: 'rooted', name: 'Rooted' });
    await expect(db.manager.query('INSERT INTO identity.sub_accounts (account_id, name, is_root) VALUES ($1, $2, true)', [account.id, 'another'])).rejects.toThrow(
      /sub_accounts_one_root/,
    );
    await db.manager.query('INSERT INTO identity.sub_accounts (account_id, name, is_root) VALUES ($1, $2, false)', [account.id, 'a division']);
  });

  it('lets exactly one of concurrent creations of a subdomain win; the others hear SUBDOMAIN_TAKEN and leave nothing behind', async () => {
    const results = await Promise.allSettled([1, 2, 3].map((n) => createAccount(db, { subdomain: 'raced', name: `Raced ${n}` })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) {
      expect(r.reason).toBeInstanceOf(DomainError);
      expect(r.reason).toMatchObject({ status: 409, code: 'SUBDOMAIN_TAKEN' });
    }
    const [{ count }] = await db.manager.query("SELECT count(*)::int AS count FROM identity.sub_accounts s JOIN identity.accounts a ON a.id = s.account_id WHERE a.subdomain = 'raced'");
    expect(count).toBe(1);
  });

  it.each([
    ['an upper-case subdomain', { subdomain: 'Acme', name: 'x' }, 'INVALID_SUBDOMAIN'],
    ['a subdomain with a trailing dash', { subdomain: 'acme-', name: 'x' }, 'INVALID_SUBDOMAIN'],
    ['an empty subdomain', { subdomain: '', name: 'x' }, 'INVALID_SUBDOMAIN'],
    ['a blank name', { subdomain: 'blank-name', name: '   ' }, 'INVALID_ACCOUNT_NAME'],
  ])('refuses %s with a 400 domain error', async (_case, input, code) => {
    await expect(createAccount(db, input)).rejects.toMatchObject({ status: 400, code });
  });
});
