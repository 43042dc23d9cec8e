import { jest } from '@jest/globals';
import pg from 'pg';
import { Column, CreateDateColumn, DeleteDateColumn, Entity, IsNull, Not, PrimaryGeneratedColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { type Database, openDatabase } from './database.js';
import { type RowLock, TenantRepository } from './tenant-repository.js';

const STRENGTHS: RowLock[] = ['update', 'no key update', 'share', 'key share'];

@Entity({ schema: 'tenanttest', name: 'notes' })
class Note {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ type: 'text' })
  title: string;
}

/** Soft deletes, dates, a nullable column and a transformer: what the cached lookup must hydrate as TypeORM does. */
@Entity({ schema: 'tenanttest', name: 'cards' })
class Card {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ type: 'text' })
  title: string;

  @Column({ name: 'secret', type: 'text', select: false, nullable: true })
  secret: string | null;

  @Column({ type: 'text', nullable: true, transformer: { to: (v: string[] | null) => (v ? v.join('|') : v), from: (v: string | null) => (v ? v.split('|') : v) } })
  tags: string[] | null;

  @Column({ type: 'boolean', default: false })
  pinned: boolean;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  labels: string[];

  @Column({ type: 'jsonb', nullable: true })
  meta: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}

class CreateNotes1700000000000 implements MigrationInterface {
  name = 'CreateNotes1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE tenanttest.notes (id serial PRIMARY KEY, account_id integer NOT NULL, title text NOT NULL)');
    await q.query('CREATE UNIQUE INDEX notes_account_title ON tenanttest.notes (account_id, title)');
    await q.query(
      'CREATE TABLE tenanttest.cards (id serial PRIMARY KEY, account_id integer NOT NULL, title text NOT NULL, secret text, tags text, pinned boolean NOT NULL DEFAULT false, labels text[] NOT NULL DEFAULT \'{}\', meta jsonb, created_at timestamptz NOT NULL DEFAULT now(), deleted_at timestamptz)',
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tenanttest.cards');
    await q.query('DROP TABLE tenanttest.notes');
  }
}

const A = { accountId: 1 };
const B = { accountId: 2 };

describe('TenantRepository: every operation stays inside the caller’s account', () => {
  let testDb: TestDatabase;
  let db: Database;
  let notes: TenantRepository<Note>;
  let cards: TenantRepository<Card>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'tenanttest', entities: [Note, Card], migrations: [CreateNotes1700000000000] });
    // As every service's outbox does: a subscriber to commits, which must not push loads off the cached path.
    db.dataSource.subscribers.push({ afterTransactionCommit: () => undefined });
    notes = new TenantRepository(db, Note);
    cards = new TenantRepository(db, Card);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });
  beforeEach(async () => {
    await db.manager.query('TRUNCATE tenanttest.notes, tenanttest.cards');
  });

  const seed = async () => ({
    a: await notes.insert(A, { title: 'shared title' }),
    b: await notes.insert(B, { title: 'shared title' }),
  });

  it('inserts for the caller, whatever accountId the values carry', async () => {
    const row = await notes.insert(A, { title: 'x', accountId: 2 } as never);
    expect(row.accountId).toBe(1);
  });

  it('finds, counts and queries only the caller’s rows', async () => {
    const { a, b } = await seed();
    expect((await notes.find(A)).map((n) => n.id)).toEqual([a.id]);
    expect((await notes.findAndCount(B))[1]).toBe(1);
    expect(await notes.findOne(A, { id: b.id })).toBeNull();
    expect(await notes.count(A, { title: 'shared title' })).toBe(1);
    expect((await notes.find(A, { where: [{ id: a.id }, { id: b.id }] })).map((n) => n.id)).toEqual([a.id]);
    expect((await notes.query(A, 'n').andWhere('n.id IN (:...ids)', { ids: [a.id, b.id] }).getMany()).map((n) => n.id)).toEqual([a.id]);
  });

  it('counts a list up to the cap, the caller’s rows only, and past it answers no count', async () => {
    await notes.insertNew(A, ['a', 'b', 'c', 'd', 'e'].map((title) => ({ title })));
    await notes.insertNew(B, ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((title) => ({ title })));
    const query = () => notes.query(A, 'n').andWhere('n.title <> :skip', { skip: 'e' }).orderBy('n.title').offset(2).limit(1);
    expect(await notes.countUpTo(query(), 4)).toBe(4);
    expect(await notes.countUpTo(query(), 3)).toBeUndefined();
    expect(await notes.countUpTo(notes.query(B, 'n'))).toBe(7);
  });

  it('updates and deletes only the caller’s rows', async () => {
    const { a, b } = await seed();
    expect(await notes.update(A, { title: 'shared title' }, { title: 'renamed' })).toBe(1);
    expect((await notes.findOne(B, { id: b.id }))?.title).toBe('shared title');
    expect(await notes.delete(B, { id: a.id })).toBe(0);
    expect(await notes.delete(A, { id: a.id })).toBe(1);
    expect(await notes.findOne(B, { id: b.id })).not.toBeNull();
  });

  it('refuses to save or remove a row of another account', async () => {
    const { b } = await seed();
    b.title = 'stolen';
    await expect(notes.save(A, b)).rejects.toThrow(/another account/);
    await expect(notes.remove(A, b)).rejects.toThrow(/another account/);
    expect((await notes.findOne(B, { id: b.id }))?.title).toBe('shared title');
  });

  it('inserts only new rows for the caller, skipping conflicts, and answers what it inserted', async () => {
    await seed();
    const inserted = await notes.insertNew(A, [{ title: 'shared title' }, { title: 'fresh' }], ['title']);
    expect(inserted).toEqual([{ title: 'fresh' }]);
    expect((await notes.find(A, { order: { title: 'ASC' } })).map((n) => n.title)).toEqual(['fresh', 'shared title']);
    expect(await notes.count(B)).toBe(1);
    expect(await notes.insertNew(A, [])).toEqual([]);
  });

  it('inserts more rows than one statement binds parameters for, in their order, skipping conflicts', async () => {
    await seed();
    const titles = Array.from({ length: 70_000 }, (_, i) => `bulk ${String(i).padStart(5, '0')}`);
    const inserted = await notes.insertNew(A, [...titles.slice(0, 3), { title: 'shared title' }, ...titles.slice(3)].map((t) => (typeof t === 'string' ? { title: t } : t)), ['id', 'title']);
    expect(inserted.map((r) => r.title)).toEqual(titles);
    expect(inserted.map((r) => r.id)).toEqual([...inserted.map((r) => r.id)].sort((a, b) => a - b));
    expect(await notes.count(A)).toBe(70_001);
    expect(await notes.count(B)).toBe(1);
  });

  it('inserts many rows as TypeORM would: transformers, defaults, array columns, and columns only some rows give', async () => {
    const many = (n: number, row: (i: number) => Partial<Card>) => Array.from({ length: n }, (_, i) => ({ title: `card ${i}`, ...row(i) }));
    // One array per column: the transformer's value, a default left to the database.
    await cards.insertNew(A, many(30_000, (i) => ({ tags: ['x', String(i)] })));
    // TypeORM's INSERT, in statements of as many rows as fit: an array column, and a column some rows leave to its default.
    await db.transaction(() => cards.insertNew(A, many(25_000, (i) => ({ tags: null, labels: ['l', String(i)], ...(i % 2 === 1 ? { pinned: true } : {}) }))));
    const stored = await cards.find(A, { order: { id: 'ASC' } });
    expect(stored).toHaveLength(55_000);
    expect(stored[29_999]).toMatchObject({ title: 'card 29999', tags: ['x', '29999'], pinned: false, labels: [], deletedAt: null });
    expect(stored[29_999].createdAt).toBeInstanceOf(Date);
    expect(stored.slice(30_000, 30_002).map(({ tags, labels, pinned }) => ({ tags, labels, pinned }))).toEqual([
      { tags: null, labels: ['l', '0'], pinned: false },
      { tags: null, labels: ['l', '1'], pinned: true },
    ]);
    expect(stored.at(-1)).toMatchObject({ title: 'card 24999', labels: ['l', '24999'], pinned: true });
    // Raw SQL (a function) goes into TypeORM's statement as written, not through a column's conversion.
    const [raw] = await cards.insertNew(A, [{ title: 'raw', meta: (() => `jsonb_build_object('a', 1)`) as unknown as Record<string, unknown> }], ['id']);
    expect((await cards.findOne(A, { id: raw.id }))?.meta).toEqual({ a: 1 });
  });

  it('joins the transaction in progress: a rollback takes every write with it', async () => {
    await expect(
      db.transaction(async () => {
        await notes.insert(A, { title: 'doomed' });
        await db.transaction(async () => notes.insert(A, { title: 'nested' }));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await notes.count(A)).toBe(0);
  });

  it('opens a deferred transaction with its writes (an Idempotency-Key’s): the opener runs first, and a failure takes the writes back', async () => {
    const seen: string[] = [];
    const hooks = { begin: async () => void seen.push('begin'), end: async () => void seen.push('end') };
    for (const write of [
      () => notes.insert(A, { title: 'deferred insert' }),
      () => notes.insertNew(A, [{ title: 'deferred insertNew' }]),
      async () => (await notes.insert(A, { title: 'kept until the failure' }), notes.update(A, { title: 'kept until the failure' }, { title: 'updated' })),
    ]) {
      seen.length = 0;
      await expect(
        db.deferredTransaction(hooks, async () => {
          await notes.count(A); // a read opens nothing
          seen.push('read');
          await write();
          seen.push('written');
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(seen).toEqual(['read', 'begin', 'written']);
      expect(await notes.count(A)).toBe(0);
    }
  });

  it('insert (the cached INSERT) answers the row TypeORM’s save answers, generated, default and nullable columns included', async () => {
    const typeorm = db.manager.getRepository(Card);
    const saved = jest.spyOn(typeorm, 'save');
    const cases: Partial<Card>[] = [{ title: 'plain' }, { title: 'full', secret: 's', tags: ['x', 'y'], pinned: true }, { title: 'nulls', secret: null, tags: null }, { title: 'empty tags', tags: [] }];
    for (const values of cases) {
      const fast = await cards.insert(A, values);
      const reference = await typeorm.save(typeorm.create({ ...values, accountId: A.accountId }));
      expect(fast).toBeInstanceOf(Card);
      expect(fast.id).toEqual(expect.any(Number));
      expect(fast.createdAt).toBeInstanceOf(Date);
      const { id, createdAt, ...rest } = fast;
      const { id: referenceId, createdAt: referenceCreatedAt, ...referenceRest } = reference;
      expect(rest).toEqual(referenceRest);
      expect([id, createdAt]).not.toEqual([referenceId, referenceCreatedAt]);
      // What it wrote reads back as what TypeORM wrote.
      const { id: _read, createdAt: _at, ...stored } = (await cards.findOne(A, { id }))!;
      const { id: _referenceRead, createdAt: _referenceAt, ...referenceStored } = (await cards.findOne(A, { id: referenceId }))!;
      expect(stored).toEqual(referenceStored);
    }
    // Only the reference rows went through save.
    expect(saved).toHaveBeenCalledTimes(cases.length);
    saved.mockRestore();
  });

  it('insert is a statement Postgres prepares once per connection, joins the transaction, and leaves Postgres’ errors as they are', async () => {
    const statements = await db.transaction(async () => {
      await notes.insert(A, { title: 'one' });
      await notes.insert(A, { title: 'two' });
      return (await db.manager.query("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'lms\\_%' AND statement LIKE 'INSERT%'")) as { statement: string }[];
    });
    expect(statements).toContainEqual({ statement: 'INSERT INTO "tenanttest"."notes" ("account_id", "title") VALUES ($1, $2) RETURNING "id"' });
    expect(statements.filter(({ statement }) => statement.includes('"notes"'))).toHaveLength(1);
    await expect(notes.insert(A, { title: 'one' })).rejects.toMatchObject({ code: '23505', constraint: 'notes_account_title' });
    await expect(db.transaction(() => notes.insert(A, { title: 'two' }))).rejects.toMatchObject({ code: '23505' });
    expect((await notes.find(A, { order: { title: 'ASC' } })).map((n) => n.title)).toEqual(['one', 'two']);
  });

  it('insert prepares a bounded number of column sets per entity, and runs the others unprepared with the same result', async () => {
    const optional = { secret: 's', tags: ['x', 'y'], pinned: true, deletedAt: new Date('2026-01-02T03:04:05Z'), createdAt: new Date('2026-01-01T00:00:00Z') };
    const names = Object.keys(optional) as (keyof typeof optional)[];
    // Every set of the five optional columns: 32 shapes, twice the bound.
    const rows = Array.from({ length: 2 ** names.length }, (_, bits): Partial<typeof optional> & { title: string } => ({
      title: `shape ${bits}`,
      ...Object.fromEntries(names.filter((_, i) => bits & (1 << i)).map((name) => [name, optional[name]])),
    }));
    const prepared = await db.transaction(async () => {
      for (const row of rows) await cards.insert(A, row);
      return (await db.manager.query("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'lms\\_%' AND statement LIKE 'INSERT INTO \"tenanttest\".\"cards\"%'")) as unknown[];
    });
    expect(prepared.length).toBeGreaterThan(0);
    expect(prepared.length).toBeLessThanOrEqual(16);
    const stored = (await db.manager.query("SELECT title, secret, tags, pinned, deleted_at, created_at FROM tenanttest.cards WHERE account_id = $1 AND title LIKE 'shape %'", [A.accountId])) as Record<string, unknown>[];
    expect(stored).toHaveLength(rows.length);
    for (const [bits, row] of rows.entries()) {
      expect(stored.find((card) => card.title === `shape ${bits}`)).toMatchObject({
        secret: row.secret ?? null,
        tags: row.tags ? 'x|y' : null,
        pinned: row.pinned ?? false,
        deleted_at: row.deletedAt ?? null,
        ...(row.createdAt ? { created_at: row.createdAt } : {}),
      });
    }
  });

  it('insert leaves to save a row with its primary key or a raw SQL value, with save’s answer', async () => {
    const typeorm = db.manager.getRepository(Note);
    const saved = jest.spyOn(typeorm, 'save');
    const raw = await notes.insert(A, { title: () => "'from SQL'" } as never);
    expect((await notes.findOne(A, { id: raw.id }))?.title).toBe('from SQL');
    // save looks the key up first, then lets the serial column number the row.
    const keyed = await notes.insert(A, { id: 4242, title: 'keyed' });
    expect(await notes.findOne(A, { id: keyed.id })).toEqual(keyed);
    expect(saved).toHaveBeenCalledTimes(2);
    saved.mockRestore();
  });

  it('findOne by equal columns (the cached SQL) answers what TypeORM’s find answers, soft deletes and hidden columns included', async () => {
    const typeorm = db.manager.getRepository(Card);
    const live = await cards.insert(A, { title: 'live', secret: 's', tags: ['x', 'y'] });
    const gone = await cards.insert(A, { title: 'gone', pinned: true });
    await typeorm.softDelete({ id: gone.id });
    const other = await cards.insert(B, { title: 'live' });
    const viaTypeorm = async (where: object, withDeleted = false) => typeorm.findOne({ where: { ...where, accountId: A.accountId }, withDeleted });

    const built = jest.spyOn(db.manager, 'findOne');
    for (const [where, withDeleted] of [[{ id: live.id }, false], [{ id: gone.id }, false], [{ id: gone.id }, true], [{ title: 'live', pinned: false }, false], [{ id: String(live.id) }, false], [{ id: other.id }, false],
      // IsNull() is a condition of the cached SQL too.
      [{ id: live.id, deletedAt: IsNull() }, true], [{ id: gone.id, deletedAt: IsNull() }, true], [{ title: 'gone', secret: IsNull() }, false], [{ title: 'live', secret: IsNull() }, false]] as const) {
      const found = await cards.findOne(A, where as never, { withDeleted });
      const expected = await viaTypeorm(where, withDeleted);
      expect(found).toEqual(expected);
      if (expected) expect(found).toBeInstanceOf(Card);
    }
    // Only the reference answers went through TypeORM's query building.
    expect(built).toHaveBeenCalledTimes(10);
    built.mockRestore();
    const shown = await cards.findOne(A, { id: live.id });
    expect(shown).toMatchObject({ tags: ['x', 'y'], pinned: false, deletedAt: null });
    expect(shown?.createdAt).toBeInstanceOf(Date);
    expect(shown).not.toHaveProperty('secret');
    // Operators and transformed columns go TypeORM's way, with the same answer.
    expect((await cards.findOne(A, { tags: ['x', 'y'] } as never))?.id).toBe(live.id);
    expect(await cards.findOne(B, { id: live.id })).toBeNull();
  });

  it('findOne by equal columns is a statement Postgres prepares once per connection, in a transaction too', async () => {
    const { a } = await seed();
    const prepared = async () => (await db.manager.query("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'lms\\_%' AND statement LIKE $1", ['SELECT %"notes"%'])) as { statement: string }[];
    const inTransaction = await db.transaction(async () => {
      const row = await notes.findOne(A, { id: a.id });
      const again = await notes.findOne(A, { id: a.id });
      return { row, again, statements: await prepared() };
    });
    expect(inTransaction.row).toEqual(inTransaction.again);
    expect(inTransaction.row?.title).toBe('shared title');
    // Once, though it ran twice on this connection (earlier tests prepared other lookups on it too).
    expect(inTransaction.statements).toEqual([{ statement: expect.stringMatching(/^SELECT .* FROM "tenanttest"\."notes" WHERE "account_id" = \$1 AND "id" = \$2/) }]);
    // On the pool: every connection that ran it has it, and answers stay the caller's.
    for (let i = 0; i < 3; i++) expect((await notes.findOne(A, { id: a.id }))?.id).toBe(a.id);
    expect(await notes.findOne(B, { id: a.id })).toBeNull();
    // Postgres' errors come back as they are, and give the connection back: more failures than the pool holds.
    for (let i = 0; i < 12; i++) await expect(notes.findOne(A, { id: 'not a number' as never })).rejects.toMatchObject({ code: '22P02' });
    await expect(db.transaction(() => notes.findOne(A, { id: 'not a number' as never }))).rejects.toMatchObject({ code: '22P02' });
    expect((await notes.findOne(A, { id: a.id }))?.id).toBe(a.id);
  });

  it('findOne keeps answering when a migration changes the type of a column its prepared statement returns', async () => {
    const { a } = await seed();
    const retype = async (type: string) => {
      // Prepared on several connections first, as a busy service would have them.
      await Promise.all(Array.from({ length: 5 }, () => notes.findOne(A, { id: a.id })));
      await db.transaction(() => notes.findOne(A, { id: a.id }));
      await db.manager.query(`ALTER TABLE tenanttest.notes ALTER COLUMN title TYPE ${type}`);
    };
    try {
      await retype('varchar(200)');
      // On the pool: each connection with the stale statement is dropped and the lookup tried again.
      for (let i = 0; i < 12; i++) expect((await notes.findOne(A, { id: a.id }))?.title).toBe('shared title');
      await retype('text');
      // In a transaction the stale statement fails that transaction once at most per connection, which is closed.
      const outcomes = [];
      for (let i = 0; i < 12; i++) outcomes.push(await db.transaction(() => notes.findOne(A, { id: a.id })).then((row) => row?.title, (err: { code?: string }) => err.code));
      const firstGood = outcomes.indexOf('shared title');
      expect(outcomes.slice(0, firstGood).every((outcome) => outcome === '0A000')).toBe(true);
      expect(outcomes.slice(firstGood)).toEqual(Array(12 - firstGood).fill('shared title'));
      for (let i = 0; i < 12; i++) expect((await notes.findOne(A, { id: a.id }))?.title).toBe('shared title');
    } finally {
      await db.manager.query('ALTER TABLE tenanttest.notes ALTER COLUMN title TYPE text');
    }
  });

  it('findOne holds the row with the strength asked for, by either path, inside a transaction only', async () => {
    const { a } = await seed();
    await expect(notes.findOne(A, { id: a.id }, { lock: 'update' })).rejects.toThrow(/transaction/i);
    const probe = new pg.Client({ connectionString: testDb.url });
    await probe.connect();
    // Which strengths another transaction cannot take meanwhile (NOWAIT: 55P03 at once instead of waiting).
    const refused = async () => {
      const out: RowLock[] = [];
      for (const strength of STRENGTHS) {
        const taken = await probe.query(`SELECT 1 FROM tenanttest.notes WHERE id = $1 FOR ${strength} NOWAIT`, [a.id]).catch((err: { code?: string }) => err);
        if ((taken as { code?: string }).code === '55P03') out.push(strength);
      }
      return out;
    };
    try {
      // The cached lookup (equal columns), then TypeORM's path (an operator).
      for (const where of [{ id: a.id }, { id: a.id, title: Not('') }]) {
        const seen: Record<string, RowLock[]> = {};
        for (const lock of STRENGTHS) {
          seen[lock] = await db.transaction(async () => {
            expect((await notes.findOne(A, where, { lock }))?.title).toBe('shared title');
            return refused();
          });
        }
        expect(seen).toEqual({
          update: ['update', 'no key update', 'share', 'key share'],
          'no key update': ['update', 'no key update', 'share'],
          share: ['update', 'no key update'],
          'key share': ['update'],
        });
      }
    } finally {
      await probe.end();
    }
  });
});
