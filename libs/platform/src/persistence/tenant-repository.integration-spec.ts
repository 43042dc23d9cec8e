import { Column, Entity, PrimaryGeneratedColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { type Database, openDatabase } from './database.js';
import { TenantRepository } from './tenant-repository.js';

@Entity({ schema: 'tenanttest', name: 'notes' })
class Note {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ type: 'text' })
  title: string;
}

class CreateNotes1700000000000 implements MigrationInterface {
  name = 'CreateNotes1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE tenanttest.notes (id serial PRIMARY KEY, account_id integer NOT NULL, title text NOT NULL)');
    await q.query('CREATE UNIQUE INDEX notes_account_title ON tenanttest.notes (account_id, title)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tenanttest.notes');
  }
}

const A = { accountId: 1 };
const B = { accountId: 2 };

describe('TenantRepository: every operation stays inside the caller’s account', () => {
  let testDb: TestDatabase;
  let db: Database;
  let notes: TenantRepository<Note>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'tenanttest', entities: [Note], migrations: [CreateNotes1700000000000] });
    notes = new TenantRepository(db, Note);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });
  beforeEach(async () => {
    await db.manager.query('TRUNCATE tenanttest.notes');
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
});
